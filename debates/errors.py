"""Error responses (handler400/404/500, and 503 when nothing could be stored): the API's JSON under
/api/ (docs/api.md), OpenAI's error object under /v1/ (what its clients read), words on pages."""

import sys
from collections.abc import Callable

from django.conf import settings
from django.core.exceptions import DisallowedHost, RequestDataTooBig, TooManyFieldsSent, TooManyFilesSent
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.template.defaultfilters import filesizeformat
from django.template.loader import render_to_string
from django.views import defaults

from debates.integrations import endpoint
from debates.integrations.openai import errors as openai
from debates.lib.unstored import unstored
from debates.refusal import Kind, Refused


def is_api(request: HttpRequest) -> bool:
    return request.path.startswith(("/api/", "/v1/"))


def in_json(request: HttpRequest, refused: Refused, status: int, headers: dict[str, str] | None = None) -> HttpResponse:
    """A refusal in the shape of the JSON interface the request came to."""
    if request.path.startswith("/v1/"):
        response = openai.error(refused, status)
        for name, value in (headers or {}).items():
            response[name] = value
        return response
    return endpoint.error(refused, status, headers)


def explain(exception: Exception) -> str:
    """What was wrong with a refused request, without echoing it back."""
    if isinstance(exception, RequestDataTooBig):
        return f"The request is too large: at most {filesizeformat(settings.DATA_UPLOAD_MAX_MEMORY_SIZE)} is accepted."
    if isinstance(exception, TooManyFieldsSent):
        return f"The request has too many fields: at most {settings.DATA_UPLOAD_MAX_NUMBER_FIELDS} are accepted."
    if isinstance(exception, TooManyFilesSent):
        return f"The request has too many files: at most {settings.DATA_UPLOAD_MAX_NUMBER_FILES} are accepted."
    if isinstance(exception, DisallowedHost):
        return "This server does not answer to that host name."
    return "The request could not be read."


def bad_request(request: HttpRequest, exception: Exception) -> HttpResponse:
    message = explain(exception)
    if is_api(request):
        refused = Refused(message, Kind.TOO_LARGE if isinstance(exception, RequestDataTooBig) else Kind.INVALID)
        return in_json(request, refused, 400)  # docs/api.md: a request too large is a 400 too
    return render(request, "400.html", {"message": message}, status=400)


def not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    if is_api(request):
        return in_json(request, Refused("There is no such API endpoint: see docs/api.md.", Kind.NOT_FOUND), 404)
    return defaults.page_not_found(request, exception)


def server_error(request: HttpRequest) -> HttpResponse:
    # A database that failed in a middleware (the local user's sign-in reads the session before any
    # view runs) is the same outage as one that failed in a view: its 503 in words, not a 500.
    if why := unstored(sys.exc_info()[1]):
        return unavailable(request, why)
    if is_api(request):
        return in_json(request, Refused("The server failed on this request; its log says why.", Kind.UNAVAILABLE), 500)
    return defaults.server_error(request)


RETRY_AFTER = "60"  # seconds: a disk is freed, or a database back, in minutes rather than seconds


class UnstoredMiddleware:
    """A request whose writes the database refused answers 503 in words, not a 500 traceback:
    the asker's question was not saved, and trying again later will work."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        why = unstored(exception)
        return unavailable(request, why) if why else None


def unavailable(request: HttpRequest, why: str) -> HttpResponse:
    """The 503 for a request the database failed (``why``, from ``unstored``), in the shape of the
    way it came: the asker's question was not saved, and trying again later will work."""
    saving = request.method == "POST"
    lost = "nothing was saved" if saving else "this page cannot be shown now"
    message = f"{why}: {lost}. Please try again later."
    if is_api(request):
        return in_json(request, Refused(message, Kind.UNAVAILABLE), 503, {"Retry-After": RETRY_AFTER})
    # Rendered without the request: its user, session and messages are in the database that
    # failed, and reading them again would wait for it a second time, then fail with a 500.
    title = "Not saved" if saving else "Unavailable"
    page = render_to_string("503.html", {"title": title, "message": message})
    return HttpResponse(page, status=503, headers={"Retry-After": RETRY_AFTER})
