"""The shape of a computation in a sentence: its numbers as ``#i``, its sides, and how each side
is written in SymPy's syntax (``renderings.Rendering``) with the rounding its claimed number allows.

A sentence becomes a ``Skeleton`` (each number replaced by ``#i``, so that patterns read its
shape); a side of "a = b" becomes a ``Side`` (its amounts with their units, whether it computes
anything); both write SymPy syntax from the numbers read and the units' sizes only, never from
the text. ``claims`` finds the claims, ``phrases`` reads the ones said in words.
"""

import itertools
import re
from dataclasses import dataclass
from fractions import Fraction

from debates.grounding import units
from debates.grounding.conventions import EVERY, World
from debates.grounding.numbers import Number, Reading, numbers
from debates.grounding.renderings import MAX_READINGS, Claim, Rendering, Term, combined, rational, renderings

APPROX = (
    r"(?:about|approximately|approx\.?|roughly|around|circa|ca\.|~|≈|nearly|almost|close\s+to|some|just\s+about"
    r"|quasi|circa|intorno\s+a|più\s+o\s+meno|aproximadamente|alrededor\s+de|casi|unos|unas|environ|à\s+peu\s+près"
    r"|presque|etwa|ungefähr|rund|knapp|fast)"
)
APPROXIMATE = re.compile(rf"(?<!\w){APPROX}(?!\w)", re.IGNORECASE)
INEQUALITY = re.compile(
    r"(?:more|less|greater|fewer|higher|lower|bigger|smaller)\s+than\s*$|(?:over|under|above|below|at\s+least|at\s+most"
    r"|up\s+to|exceeds?|beyond|oltre|più\s+di|meno\s+di|más\s+de|menos\s+de|plus\s+de|moins\s+de|mehr\s+als"
    r"|weniger\s+als|über|unter)\s*$|(?<!-)[<>≤≥]\s*$",
    re.IGNORECASE,
)
REL = (
    r"(?:==?|≈|~|→|->|(?<![^\W_])(?:is\s+equal\s+to|equals?|is|are|was|makes|gives|yields|comes\s+to|è|es|est|ist"
    r"|sind|sono|son|fa|fanno|font|ergibt|ergeben)(?![^\W_]))"
)
UNIT = "(?:" + "|".join(re.escape(w).replace("_", r"\s+") for w in units.WORDS) + r")(?![^\W_])"
UNIT_AHEAD = re.compile(rf"[ \t]*{UNIT}")
NUM = r"#\d+"
# A word naming what a number counts ("8 shards", "1.2M users"): no unit, no word of the phrases.
NOT_LABELS = (
    r"is|are|was|were|equals?|makes|gives|yields|comes|of|than|more|less|per|from|to|and|or|for|in|on|with|which"
    r"|that|the|at|by|a|an|as|so|reaches|becomes|means|totals?|grows|growing|grown|grew|compound\w*|increas\w*"
    r"|decreas\w*|ris\w*|rose|fell|falls|dropp?\w*|declin\w*|doubl\w*|after|over|each|every|times|plus|minus"
    r"|sono|sind|son|fanno|font|ergibt|ergeben"  # relations, in the other languages
)
LABEL = rf"\s+(?!(?:{NOT_LABELS})(?![^\W_]))[a-zà-ÿ][^\W\d_]{{2,}}(?![^\W_])"
AMOUNT = rf"{NUM}(?:\s*{UNIT}|{LABEL})?"
OPERATOR = r"(?:\s*[+*/^]\s*|\s+-\s+|(?<=\))\s*-\s*|\s*-\s*(?=\())"  # in prose "2-3 days" is a range


def _chain(amount: str, operator: str) -> re.Pattern[str]:
    """Sides related by "=" or a verb. In linear time: a side's run of operations is taken whole
    (possessive: no relation word is a label), and no chain starts inside one (after an operator,
    where a chain would not be bounded anyway)."""
    atom = rf"(?:(?:sqrt|log|ln|exp)\s*)?(?:\(\s*)*-?{amount}(?:\s*!)?(?:\s*\))*"  # a sign is glued: "- 1" is a bullet
    side = rf"{atom}(?:{operator}{atom})*+"
    starts = r"(?<![-+*/^(=#])(?<![-+*/^(=]\s)"
    return re.compile(rf"{starts}{side}(?:\s*{REL}\s*(?:{APPROX}\s*)?{side})+", re.IGNORECASE)


CHAIN = _chain(AMOUNT, OPERATOR)
# A CALC line's: a unit after a number but no other word, and "12-2" is a subtraction.
CALC_CHAIN = _chain(rf"{NUM}(?:\s*{UNIT})?", r"\s*[-+*/^]\s*")
RELATION = re.compile(rf"(\s*{REL}\s*(?:{APPROX}\s*)?)", re.IGNORECASE)  # kept: a word or a sign
COUNTED = re.compile(rf"#\d+{LABEL}", re.IGNORECASE)  # "4 replicas": a count of something, no unit
SIDE_ALONE = re.compile(rf"\s*{AMOUNT}\s*", re.IGNORECASE)
# Where a clause ends, for a side alone at a chain's end: not at "and" ("2 hours and 15 minutes").
CLAUSE_BREAK = re.compile(
    r"[,;:()\[\]—–]|\s-\s|(?<![^\W_])(?:so|thus|hence|therefore|which|then|because|since|i\.e\.|quindi|donc"
    r"|also|así\s+que)(?![^\W_])",
    re.IGNORECASE,
)
# "2 hours and 15 minutes": more of one amount after a side alone (not a computation of its own).
MORE_OF_IT = re.compile(rf"\s*(?:,|and|e|y|et|und)?\s*#\d+\s*{UNIT}(?!\s*{REL})", re.IGNORECASE)
OF_A_NUMBER = re.compile(r"\s+(?:of|di|del|della|de|du|des|von|vom)\s+(?:(?:the|il|la|el|le|den|der)\s+)?#\d", re.I)
PERCENT = r"\s*(?:%|percent|per\s*cent|percento|per\s+cento|por\s+ciento|pour\s+cent|prozent)"
CHANGE_WORDS = re.compile(
    r"\b(?:rise|rises|rose|increase|decrease|drop|difference|change|warmer|colder|hotter|cooler|delta|by)\b", re.I
)


@dataclass
class Skeleton:
    """A sentence with each number replaced by ``#i``, so that patterns read its shape."""

    sentence: str
    text: str
    numbers: list[Number]
    spans: list[tuple[int, int]]  # of each ``#i`` in ``text``
    approximate: bool
    taken: list[range]

    @classmethod
    def of(cls, sentence: str) -> "Skeleton":
        found = numbers(sentence, UNIT_AHEAD)
        parts, spans, at, length = [], [], 0, 0
        for i, number in enumerate(found):
            parts.append(sentence[at : number.start])
            length += len(parts[-1])
            token = f"#{i}"
            spans.append((length, length + len(token)))
            parts.append(token)
            length += len(token)
            at = number.end
        parts.append(sentence[at:])
        return cls(sentence, "".join(parts), found, spans, bool(APPROXIMATE.search(sentence)), [])

    def free(self, start: int, end: int) -> bool:
        return not any(start in span or end - 1 in span for span in self.taken)

    def take(self, start: int, end: int) -> None:
        self.taken.append(range(start, end))

    def bounded(self, start: int, end: int) -> bool:
        """Not part of a larger expression or phrase: nothing operator-like or glued on either side."""
        before, after = self.text[:start], self.text[end:]
        if re.search(r"(?:[-+*/^(=×#]\s*|[^\W_]|\b(?:of|than|from|to|by)\s+)$", before, re.I):
            return False
        if OF_A_NUMBER.match(after) and re.search(rf"{PERCENT}\s*$", self.text[start:end], re.I):
            return False  # "… = 12% of 250": a phrase of its own ("= 67% of incidents" is not)
        return not re.match(r"(?:\s*[-+*/^(]\s*[\d#(]|[^\W_]|\s*[%‰\\°]|\s+(?:than|more|less)\b)", after, re.I)

    def in_a_phrase(self, start: int) -> bool:
        """A number stands before ``start`` in its clause (since the last computation read), words
        between: what starts at ``start`` ends a phrase the finder does not read, not a side of its own."""
        since = max((taken.stop for taken in self.taken if taken.stop <= start), default=0)
        return bool(re.search(r"#\d", CLAUSE_BREAK.split(self.text[since:start])[-1]))

    def quote(self, start: int, end: int) -> str:
        """The words of the sentence the skeleton's span stands for, as written."""

        def back(position: int, closing: bool) -> int:
            for (s, e), number in zip(self.spans, self.numbers, strict=True):
                if s <= position < e or (closing and position == e):
                    return number.end if closing else number.start
            shift = sum(
                (n.end - n.start) - (e - s) for (s, e), n in zip(self.spans, self.numbers, strict=True) if e <= position
            )
            return position + shift

        return " ".join(self.sentence[back(start, False) : back(end, True)].split())

    def number(self, index: str) -> Number:
        return self.numbers[int(index)]

    def claimed(self, index: str, unit_word: str | None, sign: int = 1) -> tuple[Rendering, ...]:
        """A number as the claimed side: each reading and unit size, with the rounding it was written to."""
        number = self.number(index)
        if INEQUALITY.search(self.sentence[: number.start]):
            return ()
        unit = units.unit(unit_word) if unit_word else None
        offset = unit.offset if unit else Fraction(0)
        return tuple(
            Rendering(
                f"({'-' if sign < 0 else ''}{rational(r.value)}*{rational(size)}+{rational(offset)})",
                self.rounding(r) * size,
                size,
                offset,
                conventions,
            )
            for r, size, conventions in self.readings(number, unit)
        )[:MAX_READINGS]

    def readings(self, number: Number, unit: units.Unit | None) -> list[tuple[Reading, Fraction, frozenset[World]]]:
        """Each reading of a number with each size of its unit, where they share a convention."""
        options = unit.options if unit else ((Fraction(1), EVERY),)
        return [
            (r, size, found) for r in number.readings for size, among in options if (found := r.conventions & among)
        ]

    def rounding(self, reading: Reading) -> Fraction:
        return (reading.significant if self.approximate else reading.step) / 2

    def amounts(self, index: str, unit_word: str | None) -> list[Term]:
        """A number as part of a computation, each reading and size, in base units."""
        unit = units.unit(unit_word) if unit_word else None
        if unit is not None and unit.affine:
            return []
        found = self.readings(self.number(index), unit)
        return [Term(f"({rational(r.value)}*{rational(size)})", conventions) for r, size, conventions in found]

    def values(self, index: str, template: str = "{0}") -> list[Term]:
        """A number's readings, bare, in ``template``: "({0}/100)" for a percentage."""
        return [Term(template.format(rational(r.value)), r.conventions) for r in self.number(index).readings]

    def chain(self, match: re.Match[str]) -> list[Claim]:
        """Each pair of neighbouring sides of "a = b = c" that is a computation."""
        parts = RELATION.split(match.group(0))
        sides, relations = parts[::2], parts[1::2]
        starts = list(itertools.accumulate((len(p) for p in parts[:-1]), initial=match.start()))[::2]
        first = Side.read(self, sides[0].strip())
        if first is not None and first.lone and self.in_a_phrase(match.start()):
            # "12 engineers in 2 squads is 12 / 2 = 6": "2 squads" alone was never claimed
            sides, relations, starts = sides[1:], relations[1:], starts[1:]
        elif first is not None and first.lone and len(sides) > 2 and re.search(r"[^\W\d_]", relations[0]):
            # "Tripling 200 GB gives 3 × 200 GB = 600 GB": the computation starts from it, the last side is its result
            sides, relations, starts = sides[1:], relations[1:], starts[1:]
        last = Side.read(self, sides[-1].strip()) if sides else None
        if last is not None and last.lone and last.units and MORE_OF_IT.match(self.text, match.end()):
            sides = sides[:-1]  # "135 minutes is 2 hours and 15 minutes": one amount in two units
        found = []
        for (left, right), relation, start in zip(itertools.pairwise(sides), relations, starts, strict=False):
            if COUNTED.fullmatch(left.strip()) and re.search(r"[^\W\d_]", relation) and not SIDE_ALONE.fullmatch(right):
                continue  # "4 replicas are 4 × 250 = 1000": a count said to be a computation is prose
            claim = self.pair(left.strip(), right.strip(), start + len(left) - len(left.lstrip()))
            if claim is not None:
                found.append(claim)
        return found

    def pair(self, left: str, right: str, start: int) -> Claim | None:
        sides = [Side.read(self, s) for s in (left, right)]
        if any(s is None for s in sides):
            return None
        lhs, rhs = sides[0], sides[1]
        assert lhs is not None
        assert rhs is not None
        computed, claimed = (lhs, rhs) if rhs.lone or not lhs.lone else (rhs, lhs)
        # "365 * 24 = 8760 hours": a unit after a bare computation only names what was counted.
        counted = claimed.lone and computed.operators and not computed.dimension
        counted = counted and claimed.dimension not in ("", "percent", "temperature")
        dimensions = {"" if d == "percent" or counted else d for d in (lhs.dimension, rhs.dimension)}
        if len(dimensions) > 1 or not (lhs.operators or rhs.operators or (lhs.units and rhs.units)):
            return None
        if "temperature" in dimensions and (lhs.operators or rhs.operators or CHANGE_WORDS.search(self.sentence)):
            return None
        computed_renderings = computed.renderings(self, exact=True)
        claimed_renderings = claimed.renderings(self, exact=not claimed.lone, plain=counted)
        if not computed_renderings or not claimed_renderings:
            return None
        middle = self.text.index(right, start)
        end = middle + len(right)
        spans = {id(lhs): (start, start + len(left)), id(rhs): (middle, end)}
        kind = (
            "units"
            if lhs.units and rhs.units
            else "percent"
            if "%" in (lhs.unit_words + rhs.unit_words)
            else "arithmetic"
        )
        return Claim(
            self.quote(start, end),
            kind,
            computed_renderings,
            claimed_renderings,
            unit=claimed.unit_words[-1] if claimed.units else "",
            percent=claimed.dimension == "percent",
            question=self.quote(*spans[id(computed)]),
            said=self.quote(*spans[id(claimed)]),
        )


@dataclass(frozen=True)
class Side:
    """One side of a chain: its numbers with their units, and whether it computes anything."""

    template: str  # SymPy syntax with {0}, {1}… for each amount
    amounts: tuple[tuple[str, str | None], ...]  # (number index, unit word)
    operators: bool
    dimension: str  # "" for pure numbers (a percentage is one)
    units: int  # amounts with a unit other than percent
    unit_words: tuple[str, ...]

    @property
    def lone(self) -> bool:
        return len(self.amounts) == 1 and not self.operators

    @classmethod
    def read(cls, skeleton: Skeleton, text: str) -> "Side | None":
        amounts: list[tuple[str, str | None]] = []

        def slot(match: re.Match[str]) -> str:
            amounts.append((match.group("i"), match.group("u")))
            return "{" + str(len(amounts) - 1) + "}"

        template = re.sub(rf"#(?P<i>\d+)(?:\s*(?P<u>{UNIT})|{LABEL})?", slot, text, flags=re.IGNORECASE)
        if template.count("(") != template.count(")"):
            return None
        found = [units.unit(u) for _, u in amounts if u]
        if any(u is None for u in found):
            return None
        dimensions = {u.dimension for u in found if u and u.dimension != "percent"}
        if len(dimensions) > 1:
            return None
        operators = bool(re.search(r"[-+*/^!]|sqrt|log|ln|exp", template.strip().removeprefix("-")))
        with_units = sum(1 for u in found if u and u.dimension != "percent")
        # A product or quotient of two quantities with units has another dimension: not read.
        if with_units > 1 and re.search(r"[*/^]", template):
            return None
        dimension = dimensions.pop() if dimensions else ("percent" if found and not with_units else "")
        return cls(template, tuple(amounts), operators, dimension, with_units, tuple(u or "" for _, u in amounts))

    def renderings(self, skeleton: Skeleton, exact: bool, plain: bool = False) -> tuple[Rendering, ...]:
        """Each way to read the side; a claimed number alone with its rounding (``plain``: its unit
        only names what was counted)."""
        if not exact:
            index, unit_word = self.amounts[0]
            sign = -1 if self.template.lstrip().startswith("-") else 1
            return skeleton.claimed(index, None if plain else unit_word, sign)
        unit = units.unit(self.unit_words[0]) if self.lone and self.unit_words[0] else None
        if unit is not None and unit.affine:  # a temperature alone: an absolute reading
            sign = -1 if self.template.lstrip().startswith("-") else 1
            return skeleton.claimed(self.amounts[0][0], self.unit_words[0], sign)
        return renderings(combined(self.template, *(skeleton.amounts(i, u) for i, u in self.amounts)))
