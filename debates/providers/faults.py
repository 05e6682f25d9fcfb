"""Turning what went wrong into a Fault and a sentence a user can act on."""

import base64
import json
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from urllib.parse import quote

from debates.providers.base import Fault, ProviderError

_DETAIL_CHARS = 300
KEY_REMOVED = "[key removed]"
# A server may echo a truncated or masked key: any piece this long is removed too.
KEY_PIECE = 8


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
    """The same error with the endpoint's key, and every piece of it, removed from its message."""
    clean = redact(error.message, key)
    if clean != error.message:
        error.message = clean
        error.args = (clean,)
    return error


def redact(text: str, secret: str) -> str:
    """``text`` with ``secret``, in each form a server may echo it (``echoed_forms``), and any
    substring of such a form of KEY_PIECE+ characters replaced.

    A secret shorter than four characters is no secret (and would blank common words).
    """
    if len(secret) < 4:
        return text
    for form in echoed_forms(secret):
        text = _without_pieces(text, form)
    return text


def echoed_forms(secret: str) -> list[str]:
    """The secret as is, percent-encoded (where needed, or every byte), and base64-encoded
    (standard and URL-safe alphabets).

    Base64 of a longer text holding the key (``Bearer <key>``, ``user:<key>`` in Basic auth)
    spells the key's bytes by their place in a three-byte group: each of the three offsets
    gives its own characters, of which those that come from the key's bits alone are kept.
    """
    raw = secret.encode()
    every_byte = "".join(f"%{byte:02X}" for byte in raw)
    forms = [secret, quote(secret, safe=""), every_byte, every_byte.lower()]
    for offset in range(3):
        encoded = base64.b64encode(bytes(offset) + raw).decode()
        start, end = -(-offset * 8 // 6), (offset + len(raw)) * 8 // 6
        core = encoded[start:end]
        forms += [core, core.replace("+", "-").replace("/", "_")]
    return list(dict.fromkeys(form for form in forms if len(form) >= 4))


def _without_pieces(text: str, secret: str) -> str:
    piece = min(KEY_PIECE, len(secret))
    out: list[str] = []
    i = 0
    while i < len(text):
        if i + piece <= len(text) and text[i : i + piece] in secret:
            end = i + piece
            while end < len(text) and text[i : end + 1] in secret:
                end += 1
            out.append(KEY_REMOVED)
            i = end
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


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
