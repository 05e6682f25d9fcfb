"""A refusal as OpenAI's API words an error: what its clients read, on every answer under /v1/."""

from django.http import JsonResponse

from debates.refusal import Kind, Refused

# OpenAI's error types, by what went wrong (its client raises the matching exception).
TYPES: dict[Kind, str] = {
    Kind.UNAUTHENTICATED: "invalid_request_error",
    Kind.RATE_LIMITED: "requests",
    Kind.UNAVAILABLE: "server_error",
}
CODES: dict[Kind, str] = {
    Kind.UNAUTHENTICATED: "invalid_api_key",
    Kind.RATE_LIMITED: "rate_limit_exceeded",
    Kind.TOO_LARGE: "request_too_large",
}


def error(refused: Refused, status: int = 0) -> JsonResponse:
    """A refusal as OpenAI's API words an error: its client raises the matching exception with
    ``message``, and ``param`` names the field at fault."""
    body = {
        "error": {
            "message": str(refused),
            "type": TYPES.get(refused.kind, "invalid_request_error"),
            "param": refused.field or None,
            "code": "model_not_found"
            if (refused.kind, refused.field) == (Kind.NOT_FOUND, "model")
            else CODES.get(refused.kind),
        }
    }
    headers = {"Retry-After": str(refused.retry_after)} if refused.retry_after else None
    return JsonResponse(body, status=status or refused.status, headers=headers)
