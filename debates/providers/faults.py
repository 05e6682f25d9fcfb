"""Turning what went wrong into a Fault and a sentence a user can act on."""

import json
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

from debates.providers.base import Fault, ProviderError
from debates.providers.secrecy import Secret

_DETAIL_CHARS = 300


def status_error(name: str, status: int, body: str = "", retry_after: str | None = None) -> ProviderError:
    """The error for an HTTP status (or a provider's error event carrying one)."""
    detail = error_detail(body)
    said = f": {detail}" if detail else ""
    wait = parse_retry_after(retry_after)
    if status in (401, 403):
        return ProviderError(Fault.AUTH, f"{name} rejected the key ({status}){said}", status=status)
    if status == 429:
        when = f", retry after {wait:g}s" if wait is not None else ""
        return ProviderError(
            Fault.RATE_LIMITED, f"{name} is rate limiting us (429{when}){said}", status=status, retry_after=wait
        )
    if status in (503, 529):
        return ProviderError(
            Fault.OVERLOADED, f"{name} is overloaded ({status}){said}", status=status, retry_after=wait
        )
    if status >= 500:
        return ProviderError(Fault.SERVER, f"{name} had a server error ({status}){said}", status=status)
    return ProviderError(Fault.BAD_REQUEST, f"{name} refused the request ({status}){said}", status=status)


def without_key(error: ProviderError, key: str) -> ProviderError:
    """The same error with the endpoint's key, in every form and every piece of it, removed from its message."""
    clean = Secret(key).redact(error.message)
    if clean != error.message:
        error.message = clean
        error.args = (clean,)
    return error


def status_of(code: object) -> int:
    """The HTTP status an error event names, or 500 when it names none (a string code)."""
    return code if isinstance(code, int) and code >= 400 else 500


def error_detail(body: str) -> str:
    """The provider's own message from an error body, whichever of the usual shapes it has."""
    try:
        data = json.loads(body)
    except ValueError:
        return " ".join(body.split())[:_DETAIL_CHARS]
    if isinstance(data, list) and data:
        data = data[0]  # Gemini sometimes wraps the error in a list
    error = data.get("error", data) if isinstance(data, dict) else data
    message = error.get("message") if isinstance(error, dict) else error
    return str(message or "")[:_DETAIL_CHARS]


def parse_retry_after(value: str | None) -> float | None:
    """Seconds to wait from a Retry-After header: a number of seconds or an HTTP date."""
    if not value:
        return None
    try:
        return max(float(value), 0.0)
    except ValueError:
        pass
    try:
        return max((parsedate_to_datetime(value) - datetime.now(UTC)).total_seconds(), 0.0)
    except (TypeError, ValueError):
        return None
