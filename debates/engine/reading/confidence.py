"""The one confidence rule: a stated confidence as a fraction 0–1, read the same for every role.

Numbers: 0–1 as they are; 10 < x ≤ 100 is a percentage (85 → 0.85). 1 < x ≤ 10 is ambiguous (1.5
could be a slip, a 1–10 score or 1.5 %): it is read as a score out of 10 only where a 10-point
scale is stated, in the value ("7/10", "7 out of 10") or around it ("on a scale of 1-10"), and is
otherwise no confidence, with a note saying why. Strings may also be "85%", "4/5", "0,8", or a
word, in the languages models answer in: very low 0.1, low 0.3, medium-low 0.4, medium 0.5,
medium-high 0.7, high 0.8, very high 0.95. What cannot be read is said, never guessed.
"""

import math
import re
from dataclasses import dataclass

from debates.engine.reading.text import fold

SCALED = re.compile(r"(\d+(?:\.\d+)?)\s*(?:/|out of|su|de|sur|von)\s*(10|100|5)\b")
PERCENT = re.compile(r"(\d+(?:\.\d+)?)\s*%")
NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?")
TEN_POINT_SCALE = re.compile(
    r"\b(?:1|0|one|zero)\s*(?:-|–|to|a|al|à|bis)\s*10\b|\bout of (?:10|ten)\b|/\s*10\b"
    r"|\b(?:scale|scala|escala|échelle)\b[^.\n]{0,20}\b10\b",
    re.IGNORECASE,
)
_LEVELS = {
    0.1: "very low, molto bassa, molto basso, muy baja, muy bajo, très faible, tres faible, sehr niedrig, muito baixa",
    0.3: "low, bassa, basso, baja, bajo, faible, niedrig, baixa, baixo",
    0.4: "medium low, moderately low, medio bassa, media baja",
    0.5: "medium, moderate, media, medio, moyenne, moyen, mittel, moderata, moderado, moderada, média",
    0.7: "medium high, moderately high, medio alta, media alta",
    0.8: "high, alta, alto, elevata, elevato, haute, élevée, elevee, élevé, hoch, elevada, elevado",
    0.95: "very high, molto alta, molto alto, muy alta, muy alto, très haute, très élevée, sehr hoch, muito alta",
}
WORDS = {word: level for level, listed in _LEVELS.items() for word in (w.strip() for w in listed.split(","))}
# Longest first, so "very high" is found before "high"; accents aside.
WORD = re.compile(
    r"^(?:" + "|".join(re.escape(fold(w)) for w in sorted(WORDS, key=len, reverse=True)) + r")\b", re.IGNORECASE
)
FOLDED = {fold(word): level for word, level in WORDS.items()}


@dataclass(frozen=True)
class Confidence:
    """A confidence as read: ``value`` 0–1, or None with ``problem`` saying why (empty: none was given)."""

    value: float | None
    problem: str = ""


NONE = Confidence(None)


def read(value: object, around: str = "") -> Confidence:
    """The confidence ``value`` states; ``around`` is the text it came in, where a scale may be stated."""
    if value is None or (isinstance(value, str) and not value.strip(" *_`\"'()[]")):
        return NONE
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        return Confidence(None, f"confidence {value!r} is not a number")
    if not isinstance(value, str):
        return _number(_float(value), f"{value:g}" if isinstance(value, float) else str(value)[:20], around)
    text = " ".join(re.sub(r"[-_]", " ", value.strip(" *_`\"'()[]").casefold()).split())
    text = re.sub(r"\s*(?:confidence|fiducia|confianza|confiance)$", "", text)
    text = re.sub(r"^(\d+),(\d+)", r"\1.\2", text)  # "0,8": a decimal comma
    if match := SCALED.match(text):
        number, scale = float(match[1]), float(match[2])
        if number > scale:
            return Confidence(None, f"confidence {value!r} is outside its scale")
        return Confidence(number / scale)
    if match := PERCENT.match(text):
        if float(match[1]) > 100:
            return Confidence(None, f"confidence {value!r} is outside 0–100%")
        return Confidence(float(match[1]) / 100)
    if match := NUMBER.match(text):
        return _number(_float(match[0]), value, around)
    if match := WORD.match(fold(text)):
        return Confidence(FOLDED[match[0].casefold()])
    return Confidence(None, f"confidence {value!r} is not a number, a percentage or a word like high")


def value(value: object, around: str = "") -> float | None:
    """Only the fraction (None when none was given or it could not be read)."""
    return read(value, around).value


def _float(number: str | int | float) -> float:
    try:
        return float(number)
    except OverflowError:
        return math.inf


def _number(number: float, written: str, around: str) -> Confidence:
    if math.isnan(number) or number < 0 or number > 100:
        return Confidence(None, f"confidence {written} is outside 0–1")
    if number <= 1:
        return Confidence(number)
    if number <= 10:
        if TEN_POINT_SCALE.search(around):
            return Confidence(number / 10)
        return Confidence(None, f"confidence {written} is ambiguous (no scale given): none stored")
    return Confidence(number / 100)
