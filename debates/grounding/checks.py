"""Checking the computations a panel's texts state, between rounds, in the sandbox.

``check(texts, sandbox)`` finds each text's claims (``claims.find``), screens every side, has
the sandbox's SymPy compute each distinct side once, and says of each claim whether it holds,
with the computation: "2^10 = 1024, not 1000". A claim any side of which the screen refuses or
SymPy cannot compute is left unchecked, never guessed.
"""

import asyncio
import re
from dataclasses import asdict, dataclass
from decimal import Decimal, InvalidOperation, localcontext
from fractions import Fraction

from debates.grounding.claims import find
from debates.grounding.extract import Task
from debates.grounding.sandbox import Sandbox
from debates.grounding.screen import NotMaths, Refused, screen
from debates.grounding.sides import Claim, Rendering

RELATIVE_SLACK = Fraction(1, 10**9)  # what SymPy's 15 digits of an irrational value may be off by
SHOWN_DIGITS = 6


@dataclass(frozen=True)
class Check:
    """One claim checked: as quoted, whether it holds, and the computation that says so."""

    quote: str
    kind: str  # arithmetic, percent, growth, units, algebra
    holds: bool
    computation: str

    def as_dict(self) -> dict[str, object]:
        return asdict(self)


async def check(texts: list[str], sandbox: Sandbox) -> list[list[Check]]:
    """The checks of each text, in the texts' order (a text with no computation has none)."""
    found = await asyncio.to_thread(lambda: [find(text) for text in texts])  # the loop keeps serving others
    tasks: dict[str, Task] = {}
    for claim in (c for claims in found for c in claims):
        for task in tasks_of(claim):
            tasks.setdefault(task.describe(), task)
    facts, _notes = await sandbox.compute(list(tasks.values())) if tasks else ([], [])
    results = {fact.expression: fact.result for fact in facts}
    return [[done for claim in claims if (done := judged(claim, results))] for claims in found]


def tasks_of(claim: Claim) -> list[Task]:
    """What the sandbox computes for a claim; none when a side does not pass the screen."""
    try:
        if claim.kind == "algebra":
            left, right = claim.computed[0].expression, claim.claimed[0].expression
            return [Task("identity", screen(left), screen(right))]
        return [Task("arithmetic", screen(r.expression)) for r in (*claim.computed, *claim.claimed)]
    except (Refused, NotMaths):
        return []


def judged(claim: Claim, results: dict[str, str]) -> Check | None:
    if claim.kind == "algebra":
        key = f"{screen(claim.computed[0].expression)} = {screen(claim.claimed[0].expression)}"
        if results.get(key) not in ("True", "False"):
            return None
        holds = results[key] == "True"
        said = "holds for every value" if holds else "does not hold for every value"
        return Check(claim.quote, claim.kind, holds, f"{claim.quote}: {said} (SymPy expanded both sides)")
    computed = valued(claim.computed, results)
    claimed = valued(claim.claimed, results)
    pairs = [(v, t, c, s) for v, c in computed for t, s in claimed if c.conventions & s.conventions]
    if not pairs:
        return None
    primary = computed[0][1].conventions  # how the claim's first reading reads its numbers
    holding = [p for p in pairs if off(claim, p[0], p[1], p[3]) <= 1]
    # Where no reading holds, the value said is the first reading's, as close as it comes to the claim.
    value, _, _, side = min(
        holding or pairs, key=lambda p: (not p[2].conventions & primary, off(claim, p[0], p[1], p[3]))
    )
    result = shown(claim, value, side)
    computation = f"{claim.question} = {result}" if holding else f"{claim.question} = {result}, not {claim.said}"
    return Check(claim.quote, claim.kind, bool(holding), computation)


def off(claim: Claim, value: Fraction, target: Fraction, side: Rendering) -> Fraction:
    """How far a computed value is from the claimed one, in the claimed number's tolerances (above 1:
    it does not hold); a claim of a change's size compares sizes."""
    if claim.magnitude:
        value = abs(value)
    tolerance = side.tolerance + abs(target) * RELATIVE_SLACK
    if not tolerance:
        return Fraction(0) if value == target else Fraction(10**9)
    return abs(value - target) / tolerance


def valued(renderings: tuple[Rendering, ...], results: dict[str, str]) -> list[tuple[Fraction, Rendering]]:
    """Each rendering's computed value (the ones SymPy could not give a number for are left out)."""
    found = []
    for rendering in renderings:
        value = number(results.get(screen(rendering.expression), ""))
        if value is not None:
            found.append((value, rendering))
    return found


def number(result: str) -> Fraction | None:
    """SymPy's result as a number: "1024", "3/10", or the decimal after "≈"."""
    exact, _, approx = result.partition(" ≈ ")
    try:
        if approx:
            return Fraction(Decimal(approx))
        return Fraction(exact) if re.fullmatch(r"-?\d+(?:/\d+)?", exact) else None
    except (InvalidOperation, ValueError):
        return None


def shown(claim: Claim, value: Fraction, side: Rendering) -> str:
    """A computed value said in the claimed side's unit: "1024 bytes", "30", "+25%", "1.61051x"."""
    if claim.percent:
        figure = decimal(value * 100)
        return f"{'+' if claim.kind == 'growth' and value > 0 else ''}{figure}%"
    in_unit = (value - side.offset) / side.size
    unit = claim.unit.strip()
    if unit in ("x", "times"):
        return f"{decimal(in_unit)}x"
    return f"{decimal(in_unit)} {unit}".strip()


def decimal(value: Fraction) -> str:
    """A value as people write it: whole numbers whole, others to six significant digits (in Decimal,
    so that a value beyond a float's range is said as computed, never as 0 or an overflow)."""
    if value.denominator == 1:
        return str(value.numerator)
    with localcontext(prec=SHOWN_DIGITS):
        return f"{Decimal(value.numerator) / Decimal(value.denominator):.{SHOWN_DIGITS}g}"
