"""What the ways in that speak JSON over HTTP share (docs/api.md): who is asking, the body read
as a JSON object, typed fields. Each refuses with the one ``Refused``; the JSON API words it as
``{"error": "...", "fields": {"text": ["..."]}}`` (``api_view``), the OpenAI-compatible
endpoint as OpenAI's error object.

``Authorization: Bearer <token>`` with a per-user token made in the admin (only its SHA-256
digest is stored); a signed-in browser session also works for reading.
"""

import json
from collections.abc import Callable
from functools import wraps
from typing import Any

from django.http import HttpRequest, JsonResponse
from django.views.decorators.csrf import csrf_exempt

from debates.refusal import Kind, Refused, json_type
from debates.tokens import bearer_user

View = Callable[..., JsonResponse]
Fields = dict[str, tuple[type | tuple[type, ...], str]]  # a field's JSON type (or types), in words

UNAUTHENTICATED = "Authentication required: send 'Authorization: Bearer <token>' (made in the admin)."


def token_user(request: HttpRequest):
    """The user of the request's bearer token (see ``tokens.bearer_user``)."""
    return bearer_user(request.headers.get("Authorization", ""))


def api_view(method: str) -> Callable[[View], View]:
    """A JSON API view: one method (else a 405), its user from the token or, for a GET, the
    session; a ``Refused`` it raises becomes the API's error.

    No CSRF check applies: a session is taken only for a GET, which changes nothing, and no
    browser adds a bearer token to another site's request by itself.
    """

    def decorate(view: View) -> View:
        @csrf_exempt
        @wraps(view)
        def wrapper(request: HttpRequest, *args, **kwargs) -> JsonResponse:
            if request.method != method:
                return error(
                    Refused(f"{request.method} is not allowed here: use {method}.", Kind.INVALID),
                    405,
                    {"Allow": method},
                )
            user = token_user(request)
            if user is None and method == "GET":
                user = request.user
            if user is None or not user.is_authenticated:
                return error(Refused(UNAUTHENTICATED, Kind.UNAUTHENTICATED))
            request.user = user
            try:
                return view(request, *args, **kwargs)
            except Refused as refused:
                return error(refused)

        return wrapper

    return decorate


def error(refused: Refused, status: int = 0, headers: dict[str, str] | None = None) -> JsonResponse:
    """A refusal in the API's one error shape (docs/api.md): words, and the fields they are about."""
    extra = dict(headers or {})
    if refused.retry_after:
        extra["Retry-After"] = str(refused.retry_after)
    body = {"error": refused.message, "fields": refused.fields}
    return JsonResponse(body, status=status or refused.status, headers=extra or None)


def type_errors(payload: dict[str, Any], fields: Fields) -> dict[str, list[str]]:
    """Each field the API does not know or whose JSON type is wrong, in words (null means left out)."""
    found = {}
    for name, value in payload.items():
        if name not in fields:
            found[name] = [f"Unknown field: the fields are {', '.join(fields)}."]
        elif value is not None and type(value) not in as_types(fields[name][0]):  # not isinstance: true is no number
            found[name] = [f"Must be {fields[name][1]}, not {json_type(value)}."]
    return found


def as_types(expected: type | tuple[type, ...]) -> tuple[type, ...]:
    return expected if isinstance(expected, tuple) else (expected,)


def json_body(request: HttpRequest) -> dict[str, Any]:
    """The body as a JSON object; ``Refused`` says why it is not one."""
    try:
        payload = json.loads(request.body or b"{}")
    except ValueError:
        raise Refused("The body is not valid JSON.") from None
    except RecursionError:
        raise Refused("The body is nested too deeply to read.") from None
    if not isinstance(payload, dict):
        raise Refused("The body must be a JSON object.")
    return payload


def typed_body(request: HttpRequest, fields: Fields, refusal: str) -> dict[str, Any]:
    """The body as a JSON object whose every field is known and of its type; ``refusal`` words the
    refusal of one that is not."""
    payload = json_body(request)
    if wrong := type_errors(payload, fields):
        raise Refused(refusal, Kind.INVALID, wrong)
    return payload
