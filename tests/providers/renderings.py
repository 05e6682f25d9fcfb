"""Every way a server or a model may write a provider's key, and a check that none survives in a text.

Written apart from debates/providers/secrecy.py on purpose: the tests say what must never be shown,
the module how it is found.
"""

import base64
import json
from urllib.parse import quote

PIECE = 8  # characters of a rendering that are enough to leak it (a truncated key is still a key)
REMOVED = "[key removed]"


def b64(text: str, urlsafe: bool = False) -> str:
    encode = base64.urlsafe_b64encode if urlsafe else base64.b64encode
    return encode(text.encode()).decode()


def grouped(key: str, separator: str, first: int = 4) -> str:
    """In groups of four, as a key is read out or written on paper (the first group ``first`` long)."""
    return separator.join([key[:first], *(key[i : i + 4] for i in range(first, len(key), 4))])


def renderings(key: str) -> dict[str, str]:
    """Each rendering of ``key`` by name: the part of it that comes from the key alone (base64 of
    ``Bearer <key>`` begins with the encoding of "Bearer", which is no secret)."""
    raw = key.encode()
    return {
        "plain": key,
        "URL-encoded": quote(key, safe=""),
        "percent-encoded, every byte": "".join(f"%{byte:02X}" for byte in raw),
        "percent-encoded, lower case": "".join(f"%{byte:02x}" for byte in raw),
        "base64": b64(key)[:-4],
        "base64 of Bearer <key>": b64(f"Bearer {key}")[12:-4],
        "base64 of user:<key> (Basic auth)": b64(f"user:{key}")[8:-4],
        "URL-safe base64 of api:<key>": b64(f"api:{key}", urlsafe=True)[8:-4],
        "hex": raw.hex(),
        "HEX": raw.hex().upper(),
        "in fours, spaced": grouped(key, " "),
        "in fours, dashed": grouped(key, "-"),
        "in fours after a 3-character prefix": grouped(key, " ", first=3),
        "reversed": key[::-1],
        "JSON-escaped": json.dumps(key)[1:-1].replace("/", "\\/"),
        "JSON \\u escapes": "".join(f"\\u{ord(char):04x}" for char in key),
    }


def leaked(text: str, key: str) -> list[str]:
    """The renderings of ``key`` that a piece of PIECE characters of shows in ``text``, by name."""
    shown = text.replace(REMOVED, "\0")
    return [
        name
        for name, rendering in renderings(key).items()
        if any(rendering[i : i + PIECE] in shown for i in range(len(rendering) - PIECE + 1))
    ]


def quoting(key: str, *names: str) -> str:
    """A model's answer quoting ``key`` in the named renderings (all of them by default), in prose."""
    chosen = names or tuple(renderings(key))
    full = {**renderings(key), "base64": b64(key), "base64 of Bearer <key>": b64(f"Bearer {key}")}
    lines = [f"Here it is, {name}: {full[name]} (as you asked)." for name in chosen]
    return "Before the key.\n" + "\n".join(lines) + "\nAfter it, the answer: add read replicas."
