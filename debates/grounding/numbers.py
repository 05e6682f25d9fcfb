"""Numbers as people write them, with where they stand in the text: "1,024", "1.024", "1 000",
"1.5k", "2.5e-3", "3 million", "one thousand and twenty-four", "a million", "mille".

A number keeps every reading its form allows ("1,024" is a thousand and twenty-four in English
and a bit over one in German), with the precision it was written to: a check holds when one
reading holds, rounded as written. What is no quantity is left alone: a digit glued to letters
before it ("Q3", "gpt4", "v2"), an ordinal ("3rd"), and the numbers of dates, times and versions.
"""

import re
from dataclasses import dataclass
from fractions import Fraction

from debates.engine.quantities import NUMBER_WORDS, SCALES
from debates.engine.reading.words import wordset


@dataclass(frozen=True)
class Reading:
    """One value a number may have, the unit of its last written digit, and of its last significant one."""

    value: Fraction
    step: Fraction  # "30": 1; "1.50": 1/100; "1.5 million": 100000
    significant: Fraction  # "1000": 1000 (trailing zeros of a whole number are not significant); "1.50": 1/100


@dataclass(frozen=True)
class Number:
    start: int
    end: int
    written: str
    readings: tuple[Reading, ...]


# What looks numeric but is no quantity: dates, times of day, versions and addresses, ordinals.
NOT_QUANTITIES = re.compile(
    r"\b\d{4}-\d{1,2}-\d{1,2}\b|\b\d{1,2}[/.-]\d{1,2}[/.-]\d{2,4}\b|\b\d{1,2}:\d{2}(?::\d{2})?\b"
    r"|\bv?\d+(?:\.\d+){2,}\b|\bv\d+(?:\.\d+)?\b|\b\d+(?:st|nd|rd|th)\b",
    re.IGNORECASE,
)
DIGITS = re.compile(
    r"(?<![^\W\d_])(?<![\d.,#])"  # not glued to letters before it ("Q3"), nor inside another number
    r"(?P<n>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d{1,3}(?:\.\d{3})+(?:,\d+)?|\d{1,3}(?:[ \u00a0\u202f]\d{3})+(?![\d.,])"
    r"|\d+(?:[.,]\d+)?)"
    r"(?:[eE](?P<e>[-+]?\d{1,3}))?(?P<suffix>k|K|M|bn|mn)?(?![\d.,]\d)(?![^\W\d_]*\d)"
)
SUFFIX = {"k": 1000, "K": 1000, "M": 10**6, "bn": 10**9, "mn": 10**6}
ONES = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen "
)
TENS = "twenty thirty forty fifty sixty seventy eighty ninety"
ENGLISH = {word: value for value, word in enumerate((ONES + "eighteen nineteen").split())}
ENGLISH |= {word: 10 * (i + 2) for i, word in enumerate(TENS.split())}
# The guards' number words of other languages, less those that are English words too ("due", "once").
ENGLISH_TOO = wordset("due once elf dos cent cents mil sei tag an ans")
WORDS = {word: Fraction(int(value)) for word, value in NUMBER_WORDS.items() if word not in ENGLISH_TOO} | {
    word: Fraction(value) for word, value in ENGLISH.items()
}
SCALE_OF = {word: Fraction(int(value)) for word, value in SCALES.items() if word not in ENGLISH_TOO}
SCALE_OF |= {"trillion": Fraction(10**12)}
ONE = ("a", "an", "one", "un", "uno", "una", "une", "ein", "eine")
WORD = re.compile(r"[^\W\d_]+", re.UNICODE)
SCALE_AFTER = re.compile(r"[ \t]+(?P<w>[^\W\d_]+)")


def numbers(text: str, units: re.Pattern[str] | None = None) -> list[Number]:
    """Every number of ``text`` in order. "a" and "one" count before a scale word; before a unit
    (``units``), "one" does, and "a" where it opens the sentence ("A week is 10,080 minutes")."""
    text = NOT_QUANTITIES.sub(lambda m: "¤" * len(m.group(0)), text)
    found = [n for m in DIGITS.finditer(text) if (n := _digits(text, m))]
    taken = [range(n.start, n.end) for n in found]
    found += [n for n in _words(text, units) if not any(n.start in span for span in taken)]
    return sorted(found, key=lambda n: n.start)


def _digits(text: str, match: re.Match[str]) -> Number | None:
    written = match.group("n")
    readings = _readings(written)
    scale = Fraction(10) ** int(match.group("e") or 0) * SUFFIX.get(match.group("suffix") or "", 1)
    end = match.end()
    if scale == 1 and (after := SCALE_AFTER.match(text, end)) and after.group("w").casefold() in SCALE_OF:
        scale, end = SCALE_OF[after.group("w").casefold()], after.end()
    readings = tuple(Reading(r.value * scale, r.step * scale, r.significant * scale) for r in readings)
    return Number(match.start(), end, text[match.start() : end], readings)


def _readings(written: str) -> tuple[Reading, ...]:
    """ "1,000,000" is a million; "1,5" one and a half; "1,024" and "1.024" either a thousand and
    twenty-four or a bit over one; "1 000" a thousand."""
    if re.fullmatch(r"\d{1,3}(?:[ \u00a0\u202f]\d{3})+", written):
        return (_whole(re.sub(r"\D", "", written)),)
    groups = re.fullmatch(r"\d{1,3}(?P<sep>[.,])\d{3}", written)
    if groups:  # one group of three: either separator may be either
        return (_whole(re.sub(r"\D", "", written)), _decimal(written.replace(",", ".")))
    if re.fullmatch(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?", written):
        return (_decimal(written.replace(",", "")),)
    if re.fullmatch(r"\d{1,3}(?:\.\d{3})+(?:,\d+)?", written):
        return (_decimal(written.replace(".", "").replace(",", ".")),)
    return (_decimal(written.replace(",", ".")),)


def _whole(digits: str) -> Reading:
    value = Fraction(int(digits))
    zeros = len(digits) - len(digits.rstrip("0")) if value else 0
    return Reading(value, Fraction(1), Fraction(10**zeros))


def _decimal(written: str) -> Reading:
    whole, _, decimals = written.partition(".")
    if not decimals:
        return _whole(whole)
    step = Fraction(1, 10 ** len(decimals))
    return Reading(Fraction(written), step, step)


def _words(text: str, units: re.Pattern[str] | None) -> list[Number]:
    """Numbers written in words: a run of number words, "and" and hyphens between them."""
    found: list[Number] = []
    tokens = list(WORD.finditer(text))
    i = 0
    while i < len(tokens):
        run = _word_run(text, tokens, i)
        token = tokens[i]
        if not run and token.group(0).casefold() in ONE and units and units.match(text, token.end()):
            if not text[: token.start()].strip(" \t*_>#-"):  # "A week is 10,080 minutes."
                found.append(Number(token.start(), token.end(), token.group(0), (_whole("1"),)))
            i += 1
            continue
        if not run:
            i += 1
            continue
        words = [tokens[j].group(0).casefold() for j in range(i, i + run)]
        end = tokens[i + run - 1].end()
        value = _value(words)
        alone_one = all(w in ONE for w in words)
        if alone_one and not (units and units.match(text, end)):
            i += run
            continue  # "one" and "a" are as often a pronoun and an article
        reading = _whole(str(int(value)))
        found.append(Number(tokens[i].start(), end, text[tokens[i].start() : end], (reading,)))
        i += run
    return found


def _word_run(text: str, tokens: list[re.Match[str]], i: int) -> int:
    """How many tokens from ``i`` make one number in words (0: none)."""
    length = 0
    while i + length < len(tokens):
        word = tokens[i + length].group(0).casefold()
        between = text[tokens[i + length - 1].end() : tokens[i + length].start()] if length else " "
        if length and not re.fullmatch(r"[ \t]+|[ \t]*-[ \t]*", between):
            break
        after_scale = length and tokens[i + length - 1].group(0).casefold() in SCALE_OF
        if word in WORDS or word in SCALE_OF or (word in ONE and _scale_next(tokens, i + length)):
            length += 1
        elif word == "and" and after_scale and i + length + 1 < len(tokens):
            if tokens[i + length + 1].group(0).casefold() not in WORDS:
                break
            length += 1  # "one hundred and five"
        else:
            break
    if length and all(tokens[i + k].group(0).casefold() in SCALE_OF for k in range(length)):
        return 0  # a scale word alone ("thousands of") is no number
    return length


def _scale_next(tokens: list[re.Match[str]], i: int) -> bool:
    return i + 1 < len(tokens) and tokens[i + 1].group(0).casefold() in SCALE_OF


def _value(words: list[str]) -> Fraction:
    """The value of number words ("two hundred and five thousand": 205000)."""
    total, current = Fraction(0), Fraction(0)
    for word in words:
        if word == "and":
            continue
        if word in SCALE_OF:
            scale = SCALE_OF[word]
            current = (current or 1) * scale
            if scale >= 1000:
                total, current = total + current, Fraction(0)
        else:
            current += 1 if word in ONE else WORDS[word]
    return total + current
