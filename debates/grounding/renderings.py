"""What a claim is once read: one side to compute and one side claimed, each a few ways to read it
(``Rendering``: SymPy's syntax written from the numbers and units read, never from the text, with
the rounding the claimed number allows and the conventions it reads them in).
"""

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from debates.grounding.conventions import EVERY, World

MAX_READINGS = 8  # renderings of one side: a claim with more ambiguity than this is not checked


@dataclass(frozen=True)
class Term:
    """A piece of SymPy syntax written from the numbers and units read, and the conventions
    (``conventions``: a decimal point or comma, a kilobyte of 1000 or 1024 bytes) it reads them in."""

    expression: str
    conventions: frozenset[World] = EVERY


def combined(template: str, *options: Sequence[Term]) -> list[Term]:
    """Each way to fill ``template``'s {0}, {1}… with one term of each option, all in one convention
    ("1,000 × 1,000" is a million or a bit over one, never a thousand; "3 × 250 GB" is 750 GB
    whichever a GB is, never 3 × 250 decimal GB in binary ones); at most one more than
    ``MAX_READINGS``, so that a caller can tell there were too many."""
    found = []
    for combo in itertools.product(*options):
        conventions = EVERY.intersection(*(term.conventions for term in combo))
        if conventions:
            found.append(Term(template.format(*(term.expression for term in combo)), conventions))
            if len(found) > MAX_READINGS:
                break
    return found


@dataclass(frozen=True)
class Rendering:
    """One way to read a side, in SymPy's syntax, with how far off a claimed value may be."""

    expression: str
    tolerance: Fraction  # 0: exact; else half the unit of the claimed number's last digit
    size: Fraction = Fraction(1)  # the claimed side's unit, to say a result in it
    offset: Fraction = Fraction(0)
    conventions: frozenset[World] = EVERY  # a claimed side is compared only with a computed one read alike


@dataclass(frozen=True)
class Claim:
    """A computation stated in a text: the side to compute, the side claimed, as quoted."""

    quote: str
    kind: str  # arithmetic, percent, growth, units, algebra
    computed: tuple[Rendering, ...]
    claimed: tuple[Rendering, ...]
    unit: str = ""  # the claimed side's unit as written, to say the result in it
    percent: bool = False  # the claimed side is a percentage: the result is said as one
    question: str = ""  # what was computed, in words: "2^10", "12 % of 250", "the change from 80 to 100"
    said: str = ""  # the claimed side as written: "1000", "40", "a 25% decrease"
    magnitude: bool = False  # only the size of the computed value is claimed ("a 25% change"): its sign is said


def renderings(terms: list[Term]) -> tuple[Rendering, ...]:
    """Computed sides, exact; none when there are more readings than ``MAX_READINGS`` (too ambiguous)."""
    if len(terms) > MAX_READINGS:
        return ()
    return tuple(Rendering(term.expression, Fraction(0), conventions=term.conventions) for term in terms)


def rational(value: Fraction) -> str:
    return str(value.numerator) if value.denominator == 1 else f"({value.numerator}/{value.denominator})"
