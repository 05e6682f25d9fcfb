"""A small JSON API for scripts (documented in docs/api.md): ask, read, retry, share, judge a
verdict, the Models page's figures. What every JSON endpoint shares (the bearer token, the error
shape, typed fields) is in ``endpoint``; what each one does is the service's."""

from django.http import HttpRequest, JsonResponse

from debates import service
from debates.conversations import sharing
from debates.integrations.endpoint import Fields, api_view, typed_body
from debates.models import Source, Status
from debates.represent import urls
from debates.track import figures

# The fields of POST /api/questions and the JSON type each must have: the form would read 42 as
# "42" and "perhaps" as true, and run a paid debate on a question nobody asked.
FIELDS: Fields = {
    "text": (str, "a string"),
    "context": (str, "a string"),
    "panel": (str, "a string"),
    "criticality": (str, "a string"),
    "force_panel": (bool, "true or false"),
    "options": (list, "a list of strings"),  # the form checks the items
    "debate": (str, "a string"),
    "follow_up_of": (int, "a question's number"),
    "voices": (list, "a list of panelist names"),  # the form checks the items
    "protocol": (str, "a string"),
    "moderator": (str, "a panelist's name"),
    "deadline": (int, "a whole number of seconds"),
    "search": (bool, "true or false"),
}
RETRY_FIELDS: Fields = {"without_failed": (bool, "true or false")}
OUTCOME_FIELDS: Fields = {"outcome": (str, "a string"), "note": (str, "a string")}
SHARE_FIELDS: Fields = {
    "visibility": (str, "a string: private, users or link"),
    "hide_cost": (bool, "true or false"),
    "new_link": (bool, "true or false"),
}


def base(request: HttpRequest) -> str:
    """The server as this client reached it: the links in a reply point there."""
    return request.build_absolute_uri("/")


@api_view("POST")
def create(request: HttpRequest) -> JsonResponse:
    payload = typed_body(request, FIELDS, "The question was not accepted.")
    question = service.ask(request.user, source=Source.API, **payload)
    return JsonResponse({"id": question.pk, **urls(question, base(request))}, status=201)


@api_view("GET")
def detail(request: HttpRequest, pk: int) -> JsonResponse:
    return JsonResponse(service.read(request.user, pk, base(request)))


@api_view("POST")
def retry(request: HttpRequest, pk: int) -> JsonResponse:
    """Run a failed question again from its stored work (202): the failed calls again, or, with
    ``without_failed``, on without the failed voices; 409 says why it cannot be."""
    payload = typed_body(request, RETRY_FIELDS, "The retry was not accepted.")
    question = service.retry(request.user, pk, without_failed=payload.get("without_failed") is True)
    return JsonResponse({"id": question.pk, "status": Status.QUEUED, **urls(question, base(request))}, status=202)


@api_view("POST")
def cancel(request: HttpRequest, pk: int) -> JsonResponse:
    """Stop a running debate (its asker or staff): 202 while it stops, 200 when it had already finished."""
    typed_body(request, {}, "The cancel was not accepted.")
    stopping = service.cancel(request.user, pk)
    status = Status.CANCELLED if stopping else service.visible(request.user, pk).status
    return JsonResponse({"id": pk, "status": status, "stopping": stopping}, status=202 if stopping else 200)


@api_view("POST")
def outcome(request: HttpRequest, pk: int) -> JsonResponse:
    """Judge a finished verdict right, wrong or partly (docs/api.md); judging again replaces it."""
    service.visible(request.user, pk)  # a question not found says so before its body is read
    payload = typed_body(request, OUTCOME_FIELDS, "The outcome was not recorded.")
    return JsonResponse(
        service.outcome(request.user, pk, value=payload.get("outcome") or "", note=payload.get("note") or "")
    )


@api_view("POST")
def share(request: HttpRequest, pk: int) -> JsonResponse:
    """Change who may read a question (a field left out stays as it is); the asker or staff only."""
    question = service.actionable(request.user, pk)
    payload = typed_body(request, SHARE_FIELDS, "The sharing was not changed.")
    shared = service.share(request.user, question.pk, **payload)
    link = sharing.link_path(shared)
    return JsonResponse(
        {
            "id": shared.pk,
            "visibility": shared.visibility,
            "hide_cost": shared.hide_cost,
            "share_url": request.build_absolute_uri(link) if link else None,
        }
    )


@api_view("GET")
def models(request: HttpRequest) -> JsonResponse:
    """The Models page's figures over the questions the user may see (docs/track-record.md)."""
    return JsonResponse(figures.build(request.user).as_dict())
