"""A small JSON API for scripts (documented in docs/api.md).

``Authorization: Bearer <token>`` with a per-user token made in the admin (only its SHA-256
digest is stored); a signed-in browser session also works for reading. Errors are JSON
with words: ``{"error": "...", "fields": {"text": ["..."]}}``.
"""

import json
from collections.abc import Callable
from datetime import timedelta
from functools import wraps

from django.contrib.auth.models import AnonymousUser
from django.forms import Form
from django.http import HttpRequest, JsonResponse
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.csrf import csrf_exempt

from debates import ratelimit
from debates.forms import AskForm
from debates.live import snapshot
from debates.live.state import read_state
from debates.models import ApiToken, Question, Status
from debates.runs import tasks
from debates.tokens import digest
from debates.track import figures, outcomes

View = Callable[..., JsonResponse]

# A token's last use is kept to the minute, the grain the admin shows it in: writing it on every
# request cost each one a write transaction, and a script's burst of submissions one per question.
LAST_USE_GRAIN = timedelta(minutes=1)


def token_user(request: HttpRequest):
    """The user of a valid bearer token, None without one, AnonymousUser for a bad one."""
    scheme, _, raw = request.headers.get("Authorization", "").partition(" ")
    if scheme.lower() != "bearer":
        return None
    token = ApiToken.objects.select_related("user").filter(digest=digest(raw.strip())).first()
    if token is None or not token.user.is_active:
        return AnonymousUser()
    now = timezone.now()
    if token.last_used_at is None or now - token.last_used_at >= LAST_USE_GRAIN:
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
    return token.user


def endpoint(method: str) -> Callable[[View], View]:
    """An API view: one method (else a JSON 405), its user from the token or, for a GET, the session.

    No CSRF check applies: a session is taken only for a GET, which changes nothing, and no
    browser adds a bearer token to another site's request by itself.
    """

    def decorate(view):
        @csrf_exempt
        @wraps(view)
        def wrapper(request: HttpRequest, *args, **kwargs):
            if request.method != method:
                return error(405, f"{request.method} is not allowed here: use {method}.", headers={"Allow": method})
            user = token_user(request)
            if user is None and method == "GET":
                user = request.user
            if user is None or not user.is_authenticated:
                return error(401, "Authentication required: send 'Authorization: Bearer <token>' (made in the admin).")
            request.user = user
            return view(request, *args, **kwargs)

        return wrapper

    return decorate


def error(status: int, message: str, fields: dict | None = None, headers: dict | None = None) -> JsonResponse:
    """Every API error has this one shape (docs/api.md): words, and the fields they are about."""
    return JsonResponse({"error": message, "fields": fields or {}}, status=status, headers=headers)


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
}
JSON_TYPES = {
    str: "a string",
    int: "a number",
    float: "a number",
    bool: "true or false",
    list: "a list",
    dict: "an object",
}


def type_errors(payload: dict, fields: dict[str, tuple[type, str]] = FIELDS) -> dict[str, list[str]]:
    """Each field the API does not know or whose JSON type is wrong, in words (null means left out)."""
    found = {}
    for name, value in payload.items():
        if name not in fields:
            found[name] = [f"Unknown field: the fields are {', '.join(fields)}."]
        elif value is not None and type(value) is not fields[name][0]:  # not isinstance: true is no number
            found[name] = [f"Must be {fields[name][1]}, not {JSON_TYPES[type(value)]}."]
    return found


def urls(request: HttpRequest, question: Question) -> dict:
    page = request.build_absolute_uri(question.get_absolute_url())
    socket = request.build_absolute_uri(f"/ws/questions/{question.pk}/").replace("http", "ws", 1)
    api = request.build_absolute_uri(reverse("debates:api_question", args=[question.pk]))
    return {"url": page, "api_url": api, "ws_url": socket}


def json_body(request: HttpRequest) -> dict | JsonResponse:
    """The body as a JSON object, or the 400 that says why it is not one."""
    try:
        payload = json.loads(request.body or b"{}")
    except ValueError:
        return error(400, "The body is not valid JSON.")
    except RecursionError:
        return error(400, "The body is nested too deeply to read.")
    if not isinstance(payload, dict):
        return error(400, "The body must be a JSON object.")
    return payload


def field_errors(form: Form) -> dict[str, list[str]]:
    return {name: [e["message"] for e in errs] for name, errs in form.errors.get_json_data().items()}


@endpoint("POST")
def create(request: HttpRequest) -> JsonResponse:
    payload = json_body(request)
    if isinstance(payload, JsonResponse):
        return payload
    wrong = type_errors(payload)
    if wrong:
        return error(400, "The question was not accepted.", wrong)
    followable = Question.objects.visible_to(request.user)
    form = AskForm({key: value for key, value in payload.items() if value is not None}, followable=followable)
    if not form.is_valid():
        return error(400, "The question was not accepted.", field_errors(form))
    assert request.user.is_authenticated, "endpoint() let only a token's user through"
    wait = ratelimit.take(request.user.pk)
    if wait:
        return error(429, ratelimit.refusal(wait), headers={"Retry-After": str(wait)})
    question = form.save(owner=request.user)
    tasks.submit(question)
    return JsonResponse({"id": question.pk, **urls(request, question)}, status=201)


@endpoint("GET")
def detail(request: HttpRequest, pk: int) -> JsonResponse:
    if not Question.objects.visible_to(request.user).filter(pk=pk).exists():
        return error(404, "No such question.")
    debate = snapshot.build(pk, read_state(pk))
    return JsonResponse(represent(request, debate))


@endpoint("POST")
def retry_synthesis(request: HttpRequest, pk: int) -> JsonResponse:
    """Write a failed synthesis again from the stored panel work (202), or say why not (409)."""
    question = Question.objects.visible_to(request.user).filter(pk=pk).first()
    if question is None or not question.can_act(request.user):
        return error(404, "No such question.")
    if not tasks.retry_synthesis(question):
        return error(409, "There is no failed synthesis to write again: only a run whose synthesis failed can.")
    return JsonResponse({"id": question.pk, "status": Status.QUEUED, **urls(request, question)}, status=202)


def represent(request: HttpRequest, debate: snapshot.Debate) -> dict:
    """The debate as JSON: what the page shows, never a key or a prompt."""
    q = debate.question
    synthesis = debate.synthesis
    return {
        "id": q.pk,
        **urls(request, q),
        "text": q.text,
        "context": q.context,
        "panel": q.panel.slug,
        "protocol": q.panel.protocol,
        "criticality": q.criticality,
        "force_panel": q.force_panel,
        "options": q.options,
        "debate": q.debate or q.panel.debate,
        "follow_up_of": q.parent_id,
        "reask_of": q.reask_of_id,
        "visibility": q.visibility,
        "status": q.status,
        "phase": debate.phase,
        "error": q.error,
        "verdict": q.verdict,
        "rounds": [
            {
                "index": r.index,
                "kind": r.kind,
                "title": r.title,
                "status": r.status,
                "contributions": [
                    {
                        "seat": c.seat,
                        "label": c.label,
                        "kind": c.kind,
                        "status": c.status,
                        "text": c.text,
                        "error": c.error,
                        "decision": c.decision,
                        "confidence": c.confidence,
                        "flags": c.flags,
                        "change": c.change or None,
                        "tokens_in": c.tokens_in,
                        "tokens_out": c.tokens_out,
                        "cost": str(c.cost) if c.cost is not None else None,
                        "latency_ms": c.latency_ms,
                    }
                    for c in r.cards
                ],
            }
            for r in debate.rounds
        ],
        "synthesis": synthesis
        and {
            "text": synthesis.text,
            "sections": synthesis.sections,
            "evidence_strength": synthesis.evidence_strength,
            "confidence": synthesis.confidence,
        },
        "consensus": debate.consensus or None,
        "ledger": debate.ledger or None,
        "panel_run": {k: v for k, v in debate.panel_run.items() if k != "reveal"},
        "identities": debate.reveal,
        "calls": q.calls,
        "tokens_in": q.tokens_in,
        "tokens_out": q.tokens_out,
        "cost": str(q.cost),
        "created_at": q.created_at.isoformat(),
        "finished_at": q.finished_at.isoformat() if q.finished_at else None,
    }


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
