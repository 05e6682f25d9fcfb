"""Checking the computations a panel's texts state, between rounds, in the sandbox.

``check(texts, sandbox)`` finds each text's claims (``claims.find`` in prose, ``claims.calc`` in a
closing block's CALC line), screens every side, has the sandbox's SymPy compute each distinct side
once, and says of each claim whether it holds, with the computation: "2^10 = 1024, not 1000". The
round's computations share one time budget. A claim the screen refuses, SymPy cannot compute or the
budget leaves out is *not checked*, in words, never guessed; a CALC line the program cannot read
is said so too.
"""

import asyncio
import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from decimal import Decimal, InvalidOperation, localcontext
from fractions import Fraction

from debates.grounding.claims import calc, find
from debates.grounding.extract import Task
from debates.grounding.renderings import Claim, Rendering
from debates.grounding.sandbox import OUT_OF_TIME, Computed, Sandbox
from debates.grounding.screen import NotMaths, Unsafe, screen

RELATIVE_SLACK = Fraction(1, 10**9)  # what SymPy's 15 digits of an irrational value may be off by
SHOWN_DIGITS = 6
BUDGET_S = 5.0  # a round's checks together (TEOREMA_CHECKS_SECONDS); each one takes milliseconds
NOT_READ = "a CALC line is read as numbers, + - * / ^, brackets, “=” and the result"


@dataclass(frozen=True)
class Check:
    """One claim checked: as quoted, whether it holds (None: not checked), and the computation that
    says so (or why it was not checked)."""

    quote: str
    kind: str  # arithmetic, percent, growth, units, algebra ("" for a CALC line not read)
    holds: bool | None
    computation: str

    def as_dict(self) -> dict[str, object]:
        return asdict(self)


async def check(
    texts: Sequence[str], sandbox: Sandbox, calcs: Sequence[bool] = (), budget_s: float = BUDGET_S
) -> list[list[Check]]:
    """The checks of each text, in the texts' order (a text with no computation has none); ``calcs``
    says which texts are CALC lines. Nothing is computed past ``budget_s`` from now."""
    deadline = asyncio.get_running_loop().time() + budget_s
    lines = list(calcs) or [False] * len(texts)
    # In a thread: the loop keeps serving others.
    found = await asyncio.to_thread(
        lambda: [calc(t) if line else find(t) for t, line in zip(texts, lines, strict=True)]
    )
    planned = {id(claim): tasks_of(claim) for claims in found for claim in claims or ()}
    tasks = {task.describe(): task for wanted in planned.values() if isinstance(wanted, list) for task in wanted}
    # The cheap first: a power that takes the budget leaves the rest of the round unchecked otherwise.
    done = await sandbox.each(sorted(tasks.values(), key=cost), deadline) if tasks else []
    results = {fact.expression: fact.result for one in done for fact in one.facts}
    missed = {one.task.describe(): unfinished(one, budget_s) for one in done if one.why}
    checked = []
    for text, claims in zip(texts, found, strict=True):
        if claims is None:
            checked.append([Check(" ".join(text.split())[:200], "", None, f"not checked: {NOT_READ}")])
        else:
            checked.append([made for claim in claims if (made := outcome(claim, planned[id(claim)], missed, results))])
    return checked


def outcome(claim: Claim, wanted: list[Task] | str, missed: dict[str, str], results: dict[str, str]) -> Check | None:
    """A claim's check, or why it was not made (the screen's refusal, or a computation without a result)."""
    why = (
        wanted
        if isinstance(wanted, str)
        else next((missed[t.describe()] for t in wanted if t.describe() in missed), "")
    )
    return Check(claim.quote, claim.kind, None, f"not checked: {why}") if why else judged(claim, results)


def cost(task: Task) -> tuple[int, int]:
    """How costly a computation looks: its largest power or factorial, then its length."""
    raised = [
        int(power or factorial) for power, factorial in re.findall(r"(?:\^|\*\*)[\s(]*(\d+)|(\d+)\s*!", task.expr)
    ]
    return max(raised, default=0), len(task.expr)


def unfinished(one: Computed, budget_s: float) -> str:
    """Why a computation has no result, as a check says it."""
    if one.why == OUT_OF_TIME:
        return f"the round's {budget_s:g} s for checks ran out first"
    if one.timed_out:
        return f"SymPy gave {one.why}"
    return f"SymPy could not compute it ({one.why})"


def tasks_of(claim: Claim) -> list[Task] | str:
    """What the sandbox computes for a claim, or why the screen refuses it (none when a side is no
    expression at all: no check)."""
    try:
        if claim.kind == "algebra":
            left, right = claim.computed[0].expression, claim.claimed[0].expression
            return [Task("identity", screen(left), screen(right))]
        return [Task("arithmetic", screen(r.expression)) for r in (*claim.computed, *claim.claimed)]
    except Unsafe as refused:
        return f"it is too costly to compute ({refused})"
    except NotMaths:
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
