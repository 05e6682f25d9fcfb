"""A small JSON API for scripts (documented in docs/api.md): ask, read, retry, share, judge a
verdict, the panels with a run's estimate, the Models page's figures, the spend (staff). What every
JSON endpoint shares (the bearer token, the error shape, typed fields) is in ``endpoint``; what
each one does is the service's."""

from typing import Any

from django.http import HttpRequest, JsonResponse

from debates import service
from debates.attachments import check as files
from debates.conversations import sharing
from debates.integrations.endpoint import Fields, api_view, typed_body
from debates.models import Source, Status
from debates.refusal import Kind, Refused
from debates.represent import urls
from debates.track import figures
from debates.track import spend as spending

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
    "max_cost": ((int, float, str), "a number of dollars"),
    "search": (bool, "true or false"),
    "attachments": (list, 'a list of files {"name", "media_type", "data": base64}'),
}
LISTS = ("options", "voices")  # repeated in a multipart form
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
    """A question from a JSON body (files base64 under ``attachments``) or a multipart form (files as
    ``attachments`` parts, the other fields as text)."""
    if request.content_type == "multipart/form-data":
        payload: dict = multipart_fields(request)
        uploads = files.from_form(request.FILES.getlist("attachments"))
    else:
        payload = typed_body(request, FIELDS, "The question was not accepted.")
        uploads = files.from_json(payload.pop("attachments", None))
    question = service.ask(request.user, source=Source.API, attachments=uploads, **payload)
    return JsonResponse({"id": question.pk, **urls(question, base(request))}, status=201)


def multipart_fields(request: HttpRequest) -> dict[str, Any]:
    """A multipart form's fields, each known to the API; the ask form reads their text."""
    # An empty file field comes as an empty text field (a browser's form with no file chosen).
    if any(request.POST.getlist("attachments")):
        raise files.refuse_in("attachments", "attachments: each file is a part with a filename, not a text field.")
    if unknown := [name for name in request.POST if name not in FIELDS] + [
        name for name in request.FILES if name != "attachments"
    ]:
        known = ", ".join(FIELDS)
        raise Refused(
            "The question was not accepted.",
            Kind.INVALID,
            {n: [f"Unknown field: the fields are {known}."] for n in unknown},
        )
    return {
        name: request.POST.getlist(name) if name in LISTS else request.POST.get(name)
        for name in request.POST
        if name != "attachments"
    }


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


@api_view("GET")
def panels(request: HttpRequest) -> JsonResponse:
    """Every listed panel, whether it can run now, and a run's estimate (low / expected / high)."""
    return JsonResponse({"panels": service.panels()})


@api_view("GET")
def spend(request: HttpRequest) -> JsonResponse:
    """What the calls cost per user, panel, provider or model, per day or month (the admin's spend
    page as JSON): staff only, since it names every user's spend."""
    if not request.user.is_staff:
        raise Refused("Only staff may read the spend: it names every user's.", Kind.FORBIDDEN)
    return JsonResponse(spending.report(spending.asked(request.GET.dict())).as_dict())
