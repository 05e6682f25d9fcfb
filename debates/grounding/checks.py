"""Checking the computations a panel's texts state, between rounds, in the sandbox.

``check(texts, sandbox)`` finds each text's claims (``claims.find``), screens every side, has
the sandbox's SymPy compute each distinct side once, and says of each claim whether it holds,
with the computation: "2^10 = 1024, not 1000". A claim any side of which the screen refuses or
SymPy cannot compute is left unchecked, never guessed.
"""

import asyncio
import re
from dataclasses import asdict, dataclass
from decimal import Decimal, InvalidOperation
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
    if not computed or not claimed:
        return None
    best: tuple[Fraction, Fraction, Rendering] | None = None  # (how far off, in tolerances), value, claimed side
    for value, _ in computed:
        for target, side in claimed:
            tolerance = side.tolerance + abs(target) * RELATIVE_SLACK
            off = (
                abs(value - target) / tolerance if tolerance else (Fraction(0) if value == target else Fraction(10**9))
            )
            if best is None or off < best[0]:
                best = (off, value, side)
    assert best is not None, "both sides have values"
    off, value, side = best
    holds = off <= 1
    result = shown(claim, value, side)
    computation = f"{claim.question} = {result}" if holds else f"{claim.question} = {result}, not {claim.said}"
    return Check(claim.quote, claim.kind, holds, computation)


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
    """A value as people write it: whole numbers whole, others to six significant digits."""
    if value.denominator == 1:
        return str(value.numerator)
    figure = f"{float(value):.{SHOWN_DIGITS}g}"
    return figure if "e" not in figure else f"{float(value):.{SHOWN_DIGITS}e}"
