"""The values grounding hands to the engine: computed facts and what could not be computed."""

from dataclasses import dataclass


@dataclass(frozen=True)
class Fact:
    """One result SymPy computed: ``expression`` as computed, ``result`` as SymPy printed it."""

    kind: str  # simplify, solve, derivative, integral, limit, factor, isprime, arithmetic, identity_check
    expression: str
    result: str


@dataclass(frozen=True)
class Grounding:
    """What the pre-panel step found. ``skipped``: the question holds no maths at all."""

    facts: tuple[Fact, ...] = ()
    skipped: bool = False
    notes: tuple[str, ...] = ()

    def as_brief(self) -> str:
        """A markdown block for the panel's prompt; empty when there is nothing verified."""
        if not self.facts:
            return ""
        lines = [
            "### Verified facts (computed with SymPy)",
            "These were computed, not recalled. Rely on them; say so if you think one answers "
            "a different question than the one asked.",
            "",
        ]
        lines += [f"- {fact.kind}: `{fact.expression}` → `{fact.result}`" for fact in self.facts]
        return "\n".join(lines)
