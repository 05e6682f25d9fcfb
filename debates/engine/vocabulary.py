"""The words a run is configured and reported in, defined once: the engine compares them, the
models store them (as choices, with these labels), the forms and the CLI offer them.

Each member is a ``str``, so a value read from the database or a roster file compares equal
to its member, and a member serialises to JSON as its plain value.
"""

from enum import StrEnum


class Labelled(StrEnum):
    """A StrEnum whose members also carry a human label: ``NAME = "value", "Label"``."""

    label: str

    # ``label`` has a default only so that a type checker accepts ``Method(value)``, the lookup by value.
    def __new__(cls, value: str, label: str = "") -> "Labelled":
        member = str.__new__(cls, value)
        member._value_ = value
        member.label = label or value
        return member

    @classmethod
    def choices(cls) -> list[tuple[str, str]]:
        """(value, label) pairs, in order, as a model field's or a form's ``choices``."""
        return [(member.value, member.label) for member in cls]


class Protocol(Labelled):
    """How a panel debates (engine/protocols.py plans each)."""

    TEOREMA = "teorema", "Teorema: blind round, anonymised dossier, debate, moderator"
    ADVERSARIAL = "adversarial", "Adversarial: triage, brief, blind round, gate, critique, final positions"
    VOTE = "vote", "Vote: structured decisions, consensus threshold, escalation"


class FailurePolicy(Labelled):
    """What a failed voice does to the run (engine/policy.py applies it)."""

    STRICT = "strict", "Strict: any failed voice stops the run"
    DEGRADE = "degrade", "Degrade: retry, then drop the voice and report the panel that ran"
    QUORUM = "quorum", "Quorum: continue while at least N voices answered"


class Criticality(Labelled):
    """The stakes the asker gives a question; engine/consensus.py keys its thresholds by it."""

    LOW = "low", "Low (2/3 agreement)"
    MEDIUM = "medium", "Medium (3/4 agreement)"
    HIGH = "high", "High (4/5 agreement, else human review)"


class DebateMode(Labelled):
    """When the debate rounds run: always, or only where the blind round splits the panel."""

    ALWAYS = "always", "Always debate"
    ON_DISSENT = "on_dissent", "Debate only where the panel splits (skip it when a mixed panel agrees)"


class Method(Labelled):
    """The method a voice is made to follow, so voices on the same model still reason apart."""

    NONE = "none", "No prescribed method"
    FIRST_PRINCIPLES = "first_principles", "First principles"
    OUTSIDE_VIEW = "outside_view", "Outside view & base rates"
    COUNTER_EVIDENCE = "counter_evidence", "Seek only counter-evidence"
    REPRODUCE = "reproduce", "Reproduce verifiable claims"


class Status(Labelled):
    """Where a question stands; a run ends on one of the FINISHED ones."""

    QUEUED = "queued", "Queued"
    RUNNING = "running", "Running"
    DONE = "done", "Done"
    ANSWERED = "answered", "Answered directly (no panel)"
    NEEDS_REVIEW = "needs_review", "Needs human review"
    FAILED = "failed", "Failed"
    CANCELLED = "cancelled", "Cancelled"


FINISHED = frozenset({Status.DONE, Status.ANSWERED, Status.NEEDS_REVIEW, Status.FAILED, Status.CANCELLED})


class Outcome(Labelled):
    """How one contribution (one voice, one round) ended; only a done one is used."""

    DONE = "done", "Done"
    FAILED = "failed", "Failed"
    GATED = "gated", "Gated out (not an answer)"
    CANCELLED = "cancelled", "Cancelled (the asker stopped the run; the text so far is kept)"
