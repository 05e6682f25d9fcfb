"""The string-level gate every expression passes before it reaches SymPy's parser.

``parse_expr`` ends in Python's ``eval``, so what reaches it must already be arithmetic: a few
characters, one-letter symbols and a short list of function names. Costly shapes (huge
literals, stacked powers, deep nesting) are refused here too; the child process's limits are
only the last line of defence.
"""

import keyword
import re

from debates.grounding.worker import NAMES

MAX_CHARS = 300
MAX_DEPTH = 30
MAX_DIGITS = 60
MAX_EXPONENT = 10_000

ALLOWED = re.compile(r"[A-Za-z0-9\s+\-*/^().,!]")
NAME = re.compile(r"[A-Za-z]+")
STRAY_DOT = re.compile(r"(?<!\d)\.|\.(?!\d)")
STACKED_POWER = re.compile(r"\*\*[\s(]*[\d.]+\s*\*\*")
EXPONENT = re.compile(r"\*\*[\s(]*(\d+)")
FACTORIAL = re.compile(r"(\d+)\s*!|factorial\(\s*(\d+)")


class Unsafe(ValueError):
    """The text looks like code, or would cost too much to compute; the message says why."""


class NotMaths(ValueError):
    """The text is prose, not an expression: skipped without a note."""


def screen(source: str) -> str:
    """Return ``source`` with whitespace collapsed if it is a safe expression, else raise."""
    text = " ".join(source.split())
    if not text:
        raise NotMaths("empty")
    if "__" in text:
        raise Unsafe("it contains '__'")
    if len(text) > MAX_CHARS:
        raise Unsafe(f"it is longer than {MAX_CHARS} characters")
    stray = sorted(set(ALLOWED.sub("", text)))
    if stray:
        raise Unsafe(f"it contains {''.join(stray)!r}, which arithmetic does not need")
    if STRAY_DOT.search(text):
        raise Unsafe("it contains a '.' outside a number (attribute access)")
    for name in NAME.findall(text):
        if keyword.iskeyword(name) or keyword.issoftkeyword(name):
            raise Unsafe(f"it contains the Python keyword {name!r}")
        if len(name) > 1 and name not in NAMES:
            raise NotMaths(f"{name!r} is a word, not a symbol")
    check_nesting(text)
    check_size(text.replace("^", "**"))
    return text


def check_nesting(text: str) -> None:
    depth = 0
    for char in text:
        depth += {"(": 1, ")": -1}.get(char, 0)
        if depth > MAX_DEPTH:
            raise Unsafe(f"it is nested more than {MAX_DEPTH} levels deep")
        if depth < 0:
            raise NotMaths("unbalanced parentheses")
    if depth:
        raise NotMaths("unbalanced parentheses")


def check_size(text: str) -> None:
    if any(len(digits) > MAX_DIGITS for digits in re.findall(r"\d+", text)):
        raise Unsafe(f"it has a number longer than {MAX_DIGITS} digits")
    if STACKED_POWER.search(text):
        raise Unsafe("it stacks powers of numbers (like 10**10**10)")
    if any(int(e) > MAX_EXPONENT for e in EXPONENT.findall(text)):
        raise Unsafe(f"it raises to a power above {MAX_EXPONENT}")
    for match in FACTORIAL.finditer(text):
        if int(match.group(1) or match.group(2)) > MAX_EXPONENT:
            raise Unsafe(f"it takes the factorial of a number above {MAX_EXPONENT}")
