"""What every JSON endpoint shares (docs/api.md): who is asking, one error shape, typed fields.

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
from django.utils import timezone
from django.views.decorators.csrf import csrf_exempt

from debates.models import ApiToken
from debates.tokens import digest

View = Callable[..., JsonResponse]

# A token's last use is kept to the minute, the grain the admin shows it in: writing it on every
# request cost each one a write transaction, and a script's burst of submissions one per question.
LAST_USE_GRAIN = timedelta(minutes=1)


def token_user(request: HttpRequest):
    """The user of the request's bearer token (see ``bearer_user``)."""
    return bearer_user(request.headers.get("Authorization", ""))


def bearer_user(authorization: str):
    """The user of a valid bearer token in an Authorization header's value, None without one,
    AnonymousUser for a bad one."""
    scheme, _, raw = authorization.partition(" ")
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


JSON_TYPES = {
    str: "a string",
    int: "a number",
    float: "a number",
    bool: "true or false",
    list: "a list",
    dict: "an object",
}


def type_errors(payload: dict, fields: dict[str, tuple[type, str]]) -> dict[str, list[str]]:
    """Each field the API does not know or whose JSON type is wrong, in words (null means left out)."""
    found = {}
    for name, value in payload.items():
        if name not in fields:
            found[name] = [f"Unknown field: the fields are {', '.join(fields)}."]
        elif value is not None and type(value) is not fields[name][0]:  # not isinstance: true is no number
            found[name] = [f"Must be {fields[name][1]}, not {JSON_TYPES[type(value)]}."]
    return found


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
