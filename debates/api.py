"""A small JSON API for scripts (documented in docs/api.md); what every endpoint shares (the
bearer token, the error shape, typed fields) is in ``debates.endpoint``."""

from django.http import HttpRequest, JsonResponse

from debates import asking
from debates.endpoint import endpoint, error, field_errors, json_body, type_errors
from debates.forms import AskForm
from debates.live import snapshot
from debates.live.state import read_state
from debates.models import Question, Source, Status
from debates.represent import represent, urls
from debates.runs import tasks
from debates.track import figures, outcomes

# The fields of POST /api/questions and the JSON type each must have: the form would read 42 as
# "42" and "perhaps" as true, and run a paid debate on a question nobody asked.
FIELDS: dict[str, tuple[type, str]] = {
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
}


@endpoint("POST")
def create(request: HttpRequest) -> JsonResponse:
    payload = json_body(request)
    if isinstance(payload, JsonResponse):
        return payload
    wrong = type_errors(payload, FIELDS)
    if wrong:
        return error(400, "The question was not accepted.", wrong)
    followable = Question.objects.visible_to(request.user)
    form = AskForm({key: value for key, value in payload.items() if value is not None}, followable=followable)
    if not form.is_valid():
        return error(400, "The question was not accepted.", field_errors(form))
    assert request.user.is_authenticated, "endpoint() let only a token's user through"
    try:
        question = asking.ask(form, request.user, Source.API)
    except asking.OverLimit as refused:
        return error(429, refused.message, headers={"Retry-After": str(refused.wait)})
    return JsonResponse({"id": question.pk, **urls(request, question)}, status=201)


@endpoint("GET")
def detail(request: HttpRequest, pk: int) -> JsonResponse:
    if not Question.objects.visible_to(request.user).filter(pk=pk).exists():
        return error(404, "No such question.")
    debate = snapshot.build(pk, read_state(pk))
    return JsonResponse(represent(request, debate))


RETRY_FIELDS: dict[str, tuple[type, str]] = {"without_failed": (bool, "true or false")}


@endpoint("POST")
def retry(request: HttpRequest, pk: int) -> JsonResponse:
    """Run a failed question again from its stored work (202): the failed calls again, or, with
    ``without_failed``, on without the failed voices; 409 says why it cannot be."""
    payload = json_body(request)
    if isinstance(payload, JsonResponse):
        return payload
    if wrong := type_errors(payload, RETRY_FIELDS):
        return error(400, "The retry was not accepted.", wrong)
    question = Question.objects.visible_to(request.user).filter(pk=pk).first()
    if question is None or not question.can_act(request.user):
        return error(404, "No such question.")
    if refused := tasks.retry(question, without_failed=payload.get("without_failed") is True):
        return error(409, f"Not queued: {refused}.")
    return JsonResponse({"id": question.pk, "status": Status.QUEUED, **urls(request, question)}, status=202)


OUTCOME_FIELDS: dict[str, tuple[type, str]] = {"outcome": (str, "a string"), "note": (str, "a string")}


@endpoint("POST")
def outcome(request: HttpRequest, pk: int) -> JsonResponse:
    """Judge a finished verdict right, wrong or partly (docs/api.md); judging again replaces it."""
    question = Question.objects.visible_to(request.user).filter(pk=pk).first()
    if question is None:
        return error(404, "No such question.")
    payload = json_body(request)
    if isinstance(payload, JsonResponse):
        return payload
    wrong = type_errors(payload, OUTCOME_FIELDS)
    if wrong:
        return error(400, "The outcome was not recorded.", wrong)
    try:
        recorded = outcomes.mark(question, request.user, payload.get("outcome") or "", payload.get("note") or "")
    except outcomes.Refused as refused:
        return error(refused.status, refused.message, {refused.field: [refused.message]} if refused.field else None)
    return JsonResponse(outcomes.as_dict(recorded))


@endpoint("GET")
def models(request: HttpRequest) -> JsonResponse:
    """The Models page's figures over the questions the user may see (docs/track-record.md)."""
    return JsonResponse(figures.build(request.user).as_dict())
