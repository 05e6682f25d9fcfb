"""The one lenient JSON extractor: JSON as models write it, wherever it sits in their text.

Lenient about syntax (strict JSON, then JSON5: single quotes, trailing commas, comments, unquoted
keys; then a Python literal, as models that think in Python print ``None``; typographic quotes;
bare scores such as ``"confidence": 85%``), and about place (a fence, prose before and after).
Strict about meaning: what does not parse is not guessed at, it is skipped.
"""

import ast
import json
import re
from collections.abc import Callable

import json5

from debates.engine.reading.text import SMART_QUOTES

MAX_TEXT = 100_000
MAX_STARTS = 200  # opening brackets tried, from the end
MAX_SPAN = MAX_TEXT // 5
BARE_SCORE = re.compile(r"(:\s*)(\d+(?:\.\d+)?\s*(?:%|/\s*\d+|out of \d+))(?=\s*[,}\n])")
FENCE_OPEN = re.compile(r"```[\w-]*\s*")
LOADERS: tuple[Callable[[str], object], ...] = (
    lambda s: json.loads(s, strict=False),
    lambda s: json5.loads(s, strict=False),
    ast.literal_eval,
)


def load(span: str) -> object:
    """The value ``span`` holds, read as leniently as above; None when it holds none."""
    quoted = BARE_SCORE.sub(r'\1"\2"', span.translate(SMART_QUOTES))
    for candidate in dict.fromkeys((span, span.translate(SMART_QUOTES), quoted)):
        for loader in LOADERS:
            try:
                return loader(candidate)
            except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
                continue
    return None


def whole(text: str) -> object:
    """The value a whole text is (inside a code fence or not); None when it is not one value."""
    return load(body) if (body := unfenced(text))[:1] in "{[" and body[-1:] in "}]" else None


def unfenced(text: str) -> str:
    """``text`` stripped and out of its code fence, with string tests: a regex for the closing
    fence would be tried at every position of the text."""
    body = text.strip()
    if opening := FENCE_OPEN.match(body):
        body = body[opening.end() :]
    return body[:-3].rstrip() if body.endswith("```") else body


def values(text: str, openers: str = "{") -> list[object]:
    """The outermost values that parse, in order of place; an opener inside one that parsed is not a start.

    Only the last ``MAX_STARTS`` openers of the last ``MAX_TEXT`` characters are tried: what a
    reader wants closes the text.
    """
    text = text[-MAX_TEXT:]
    found: list[object] = []
    reached = 0
    starts = [i for i, ch in enumerate(text) if ch in openers][-MAX_STARTS:]
    for start in starts:
        if start < reached:
            continue
        end = closing(text, start)
        if end is None:
            continue
        value = load(text[start:end])
        if isinstance(value, dict | list):
            found.append(value)
            reached = end
    return found


def objects(text: str) -> list[dict[object, object]]:
    """The outermost objects of ``text``, in order."""
    return [value for value in values(text) if isinstance(value, dict)]


def closing(text: str, start: int) -> int | None:
    """The index after the bracket that closes the one at ``start``, minding strings and comments."""
    depth, quote, i, limit = 0, "", start, min(len(text), start + MAX_SPAN)
    while i < limit:
        ch = text[i]
        if quote:
            if ch == "\\":
                i += 1
            elif ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif text.startswith("//", i):
            i = text.find("\n", i)
            if i < 0:
                return None
        elif text.startswith("/*", i):
            i = text.find("*/", i + 2) + 1
            if i <= 0:
                return None
        elif ch in "{[":
            depth += 1
        elif ch in "}]":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return None


def keyed(obj: dict[object, object]) -> dict[str, object]:
    """An object's fields by a key a reader can compare: case, spaces, "_" and "-" aside."""
    return {re.sub(r"[\s_-]", "", str(key).casefold()): value for key, value in obj.items()}
