"""Verified maths before the debate: what SymPy computes goes into the brief as facts, and
what it could not compute (refused, too slow, failed) as notes.

``ground(question, context)`` finds the maths (``extract``), screens it (``screen``), computes it
in a limited child process (``sandbox``, ``worker``); ``contradictions`` later tells the
moderator which claims of a panelist disagree with a computed fact.
"""

from debates.grounding.contradictions import contradictions
from debates.grounding.extract import extract
from debates.grounding.facts import Fact, Grounding
from debates.grounding.sandbox import compute

__all__ = ["Fact", "Grounding", "contradictions", "ground"]


async def ground(question: str, context: str = "") -> Grounding:
    """Compute the maths of a question; never raises, never blocks the event loop."""
    tasks, notes = extract(f"{question}\n{context}")
    if not tasks:
        return Grounding(notes=tuple(notes))
    facts, compute_notes = await compute(tasks)
    return Grounding(facts=tuple(dict.fromkeys(facts)), notes=tuple(notes + compute_notes))
