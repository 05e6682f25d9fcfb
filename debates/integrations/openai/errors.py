"""A refusal as OpenAI's API words an error: what its clients read, on every answer under /v1/.

Asking again changes nothing for most refusals, and a retried completion could pay for a debate
twice: those say ``x-should-retry: false``, the header the openai and anthropic packages (and
LiteLLM, LangChain and ``llm`` through them) obey before their own rules. A server that could not
store the request, or the hour's limit, leave the choice to the client: asking again is safe.
"""

from django.http import JsonResponse

from debates.refusal import Kind, Refused

# OpenAI's error types, by what went wrong (its client raises the matching exception).
TYPES: dict[Kind, str] = {
    Kind.UNAUTHENTICATED: "invalid_request_error",
    Kind.RATE_LIMITED: "requests",
    Kind.UNAVAILABLE: "server_error",
    Kind.OVER_BUDGET: "insufficient_quota",
}
RETRYABLE = frozenset({Kind.UNAVAILABLE, Kind.RATE_LIMITED})
NO_RETRY = {"x-should-retry": "false"}
# The clients retry a 409 by their own rules too: a conflict here (a key used for another request) is a 422.
STATUS = {Kind.CONFLICT: 422}
CODES: dict[Kind, str] = {
    Kind.UNAUTHENTICATED: "invalid_api_key",
    Kind.RATE_LIMITED: "rate_limit_exceeded",
    Kind.TOO_LARGE: "request_too_large",
    Kind.OVER_BUDGET: "insufficient_quota",
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
    headers = {"Retry-After": str(refused.retry_after)} if refused.retry_after else {}
    headers |= {} if refused.kind in RETRYABLE else NO_RETRY
    return JsonResponse(body, status=status or STATUS.get(refused.kind, refused.status), headers=headers or None)
