"""What a model answered, read the way a grader would, and whether it matches the expected answer.

An item is compared one of three ways, chosen from its expected answer (``kind_of``): by
**option** when it has options (a letter, a number or the option's text: sameness.option_named),
as a **number** when the expected answer is one (whole numbers exactly, others within a relative
tolerance of 1e-6), else as **text** (reading.words.normalise: case, spacing, punctuation, articles
and markdown aside).

Numbers are read as models write them: "1,234", "−7", "7.0", "x = 7", "The answer is **7**.",
``\\boxed{7}``, "7 (approximately)", after a ``<think>`` block. A short statement (the ANSWER
line, a verdict) states its answer first; a whole text states it last. Words are not numbers:
"forty-two" is not read, so it counts as wrong.
"""

import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from enum import StrEnum

from debates.engine.reading.text import clean_value, without_thinking
from debates.engine.reading.words import normalise
from debates.engine.sameness import option_named

TOLERANCE = Decimal("1e-6")  # relative: 0.3333333 matches 1/3 written as 0.333333
MINUS = "-−–"
NUMBER = re.compile(rf"(?<![\w.])(?P<sign>[{MINUS}]?)(?P<int>\d{{1,3}}(?:,\d{{3}})+|\d+)(?P<frac>\.\d+)?(?!\d)")
BOXED = re.compile(r"\\boxed\s*\{(?P<inner>(?:[^{}]|\{[^{}]*\})*)\}")
MARKER = re.compile(
    r"(?i)\b(?:answer|result|total|value|solution)\b(?:\s+(?:is|equals|would be|should be))?\s*(?:[:=]|is\b)?"
)
EQUALS = re.compile(r"=")
BOLD = re.compile(r"\*\*(?P<inner>[^*\n]{1,40})\*\*")
LETTER = re.compile(
    r"\((?P<a>[A-Z])\)|\b(?P<b>[A-Z])\)|\boption\s+(?P<c>[A-Za-z])\b|\*\*(?P<d>[A-Z])\*\*"
    r"|\b(?:answer|choice)\s*(?:is|:)\s*\(?(?P<e>[A-Z])\b(?![-'])",
)
MARKER_REACH = 40  # characters after "the answer is" in which its number must start


class Kind(StrEnum):
    """How an item's answers are compared."""

    NUMBER = "number"
    OPTION = "option"
    TEXT = "text"


@dataclass(frozen=True)
class ReadAnswer:
    """A model's answer as written (``answer``: its ANSWER line, if any), as read, and from where."""

    answer: str
    read: str  # canonical: "7", the option's text, or the cleaned text; "" when nothing was read
    source: str  # "answer line", "text" or "none"


def kind_of(expected: str, options: tuple[str, ...]) -> Kind:
    """Option with options; number when the expected answer is a bare number; else text."""
    if options:
        return Kind.OPTION
    bare = clean_value(expected).strip("$ ")
    match = NUMBER.search(bare)
    return Kind.NUMBER if match and match.group(0) == bare else Kind.TEXT


def read_number(text: str, whole: bool = False) -> Decimal | None:
    """The number a statement gives as its answer (``whole``: a whole response, read from its end)."""
    body = without_thinking(text)
    for boxed in reversed(BOXED.findall(body)):
        if (number := _first(boxed)) is not None:
            return number
    markers = list(MARKER.finditer(body))
    for marker in reversed(markers):
        found = NUMBER.search(body, marker.end(), marker.end() + MARKER_REACH)
        if found and not body[marker.end() : found.start()].strip(" *_`$(:=").strip():
            return _number(found)
    if not whole:
        equals = [m.end() for m in EQUALS.finditer(body)]
        for end in reversed(equals):
            if (number := _first(body[end:])) is not None:
                return number
        return _first(body)
    for bold in reversed(BOLD.findall(body)):
        if (number := _first(bold)) is not None:
            return number
    numbers = list(NUMBER.finditer(body))
    return _number(numbers[-1]) if numbers else None


def _first(text: str) -> Decimal | None:
    found = NUMBER.search(text)
    return _number(found) if found else None


def _number(match: re.Match[str]) -> Decimal | None:
    sign = "-" if match["sign"] else ""
    try:
        value = Decimal(f"{sign}{match['int'].replace(',', '')}{match['frac'] or ''}")
    except InvalidOperation:
        return None
    return value if value else Decimal(0)  # "-0" is 0


def number_text(value: Decimal) -> str:
    """A number's canonical form: "7" for 7.0, "1234" for 1,234, "-0.5"."""
    return format(value.normalize(), "f")


def read_option(text: str, options: tuple[str, ...], whole: bool = False) -> int | None:
    """The index of the option a statement names; a whole text is read for its last mention."""
    body = without_thinking(text)
    if not whole and (index := option_named(clean_value(body), options)) is not None:
        return index
    mentions: list[tuple[int, int]] = []  # (position, option index)
    for match in LETTER.finditer(body):
        letter = next(g for g in match.groups() if g)
        index = ord(letter.upper()) - ord("A")
        if index < len(options):
            mentions.append((match.start(), index))
    for index, option in enumerate(options):
        pattern = rf"(?i)(?<!\w){re.escape(option.strip())}(?!\w)"
        mentions += [(m.start(), index) for m in re.finditer(pattern, body)]
    return max(mentions)[1] if mentions else None


def canonical(text: str, kind: Kind, options: tuple[str, ...], whole: bool = False) -> str:
    """The answer a statement gives, in the form it is compared in; "" when none can be read."""
    if kind == Kind.NUMBER:
        number = read_number(text, whole)
        return number_text(number) if number is not None else ""
    if kind == Kind.OPTION:
        index = read_option(text, options, whole)
        return options[index].strip() if index is not None else ""
    body = without_thinking(text)
    if whole:
        lines = [line for line in body.splitlines() if line.strip()]
        body = MARKER.sub("", lines[-1], count=1) if lines else ""
    return clean_value(body)


def read(answer_line: str, text: str, kind: Kind, options: tuple[str, ...]) -> ReadAnswer:
    """A model's answer: its ANSWER line when it wrote one, else what its whole text ends on."""
    if answer_line.strip():
        return ReadAnswer(answer_line, canonical(answer_line, kind, options), "answer line")
    found = canonical(text, kind, options, whole=True)
    return ReadAnswer("", found, "text" if found else "none")


def same(read_answer: str, expected: str, kind: Kind) -> bool:
    """Whether a canonical answer matches the expected one (itself in canonical form)."""
    if not read_answer:
        return False
    if kind == Kind.NUMBER:
        a, b = Decimal(read_answer), Decimal(expected)
        if a == a.to_integral_value() and b == b.to_integral_value():
            return a == b  # whole numbers are exact: 1000001 is not a million
        return abs(a - b) <= TOLERANCE * max(abs(b), Decimal(1))
    if kind == Kind.OPTION:
        return read_answer == expected
    return normalise(read_answer) == normalise(expected)
