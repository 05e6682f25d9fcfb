"""Error responses (handler400/404/500): JSON under /api/, as docs/api.md promises; words on pages."""

from django.conf import settings
from django.core.exceptions import DisallowedHost, RequestDataTooBig, TooManyFieldsSent, TooManyFilesSent
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.template.defaultfilters import filesizeformat
from django.views import defaults

from debates import endpoint


def is_api(request: HttpRequest) -> bool:
    return request.path.startswith("/api/")


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
        return endpoint.error(400, message)
    return render(request, "400.html", {"message": message}, status=400)


def not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    if is_api(request):
        return endpoint.error(404, "There is no such API endpoint: see docs/api.md.")
    return defaults.page_not_found(request, exception)


def server_error(request: HttpRequest) -> HttpResponse:
    if is_api(request):
        return endpoint.error(500, "The server failed on this request; its log says why.")
    return defaults.server_error(request)
