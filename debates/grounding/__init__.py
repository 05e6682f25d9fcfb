"""Verified maths before the debate: what SymPy computes goes into the brief as facts, and
what it could not compute (refused, too slow, failed) as notes.

``ground(question, context)`` finds the maths (``extract``), screens it (``screen``), computes it
in a limited child process (``sandbox``, ``worker``); ``contradictions`` later tells the
moderator which claims of a panelist disagree with a computed fact, and ``checks`` checks the
computations each round states (``claims``, ``numbers``, ``units``). ``SympyGrounder`` is all of
it as the engine's Grounder; the checks of every run on an event loop share one SymPy child.
"""

from typing import Any

from debates.engine.checks import Said
from debates.grounding import checks
from debates.grounding.contradictions import contradictions
from debates.grounding.extract import extract
from debates.grounding.facts import Fact, Grounding
from debates.grounding.sandbox import Sandbox, compute, shared

__all__ = ["Fact", "Grounding", "SympyGrounder", "contradictions", "ground"]


async def ground(question: str, context: str = "") -> Grounding:
    """Compute the maths of a question; never raises, never blocks the event loop."""
    tasks, notes = extract(f"{question}\n{context}")
    if not tasks:
        return Grounding(notes=tuple(notes))
    facts, compute_notes = await compute(tasks)
    return Grounding(facts=tuple(dict.fromkeys(facts)), notes=tuple(notes + compute_notes))


class SympyGrounder:
    """The engine's Grounder: SymPy before the panel (a child of its own: a question's maths may take
    seconds), the claims that contradict its facts, and the computations of each round checked
    between rounds, in ``sandbox`` (by default the child the loop's runs share: each check takes
    milliseconds). ``warm`` starts that child ahead of the first check: call it as the run starts.
    A round's checks share ``budget_s`` seconds; what does not fit is not checked, and said so."""

    def __init__(self, sandbox: Sandbox | None = None, budget_s: float = checks.BUDGET_S) -> None:
        self.facts: tuple[Fact, ...] = ()
        self.given = sandbox
        self.budget_s = budget_s

    @property
    def sandbox(self) -> Sandbox:
        return self.given or shared()

    def warm(self) -> None:
        self.sandbox.warm()

    async def ground(self, question: str, context: str) -> str:
        grounded = await ground(question, context)
        self.facts = grounded.facts
        return grounded.as_brief()

    def contradicts(self, text: str) -> list[str]:
        return contradictions(self.facts, text)

    async def check(self, said: list[Said]) -> list[dict[str, Any]]:
        """Each computation found, checked, with who said it where; a claim's own check comes
        before the same computation found in the prose around it, and each is said once per voice."""
        found: dict[tuple[str, str], dict[str, Any]] = {}
        checked = await checks.check([s.text for s in said], self.sandbox, [s.calc for s in said], self.budget_s)
        for one, results in zip(said, checked, strict=True):
            for result in results:
                key = (one.label, result.quote if result.holds is None else result.computation)
                if key not in found or (one.claim and not found[key]["claim"]):
                    found[key] = {"label": one.label, "round": one.round, "claim": one.claim, **result.as_dict()}
        return list(found.values())
