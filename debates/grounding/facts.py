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
    """What the pre-panel step found: facts computed, and notes on what could not be."""

    facts: tuple[Fact, ...] = ()
    notes: tuple[str, ...] = ()

    def as_brief(self) -> str:
        """A markdown block for the panel's prompt: the verified facts, then what was not verified.

        Empty when grounding found nothing to say (the step is then skipped).
        """
        lines: list[str] = []
        if self.facts:
            lines += [
                "### Verified facts (computed with SymPy)",
                "These were computed, not recalled. Rely on them; say so if you think one answers "
                "a different question than the one asked.",
                "",
            ]
            lines += [f"- {fact.kind}: `{fact.expression}` → `{fact.result}`" for fact in self.facts]
        if self.notes:
            if lines:
                lines.append("")
            lines += ["### Not verified", "SymPy did not compute these: treat them as unchecked.", ""]
            lines += [f"- {note}" for note in self.notes]
        return "\n".join(lines)
