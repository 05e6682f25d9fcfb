"""The words a run is configured and reported in, defined once: the engine compares them, the
models store them (as choices, with these labels), the forms and the CLI offer them.

Each member is a ``str``, so a value read from the database or a roster file compares equal
to its member, and a member serialises to JSON as its plain value.
"""

from debates.lib.labelled import Labelled


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


class StepKind(Labelled):
    """What one step of a run is (engine/protocols.py plans them), and so what its contributions are.

    Two kinds are contributions inside another step's round: the judge's grouping of the round's
    answers (``AGREEMENT``), and a voice asked for the basis of a change it gave no reason for (``BASIS``).
    """

    GROUNDING = "grounding", "Verified maths (SymPy)"
    CHECK = "check", "Numbers checked (SymPy)"
    TRIAGE = "triage", "Triage"
    ANSWER = "answer", "Blind answers"
    DEBATE = "debate", "Debate"
    CRITIQUE = "critique", "Cross-critique"
    FINAL = "final", "Final positions"
    CRITIQUE_FINAL = "critique_final", "Critique and final positions"
    VOTE = "vote", "Vote"
    DISSENT = "dissent", "Debate on the dissent"
    REVOTE = "revote", "Re-vote"
    TIEBREAK = "tiebreak", "Tie-breaker"
    SYNTHESIS = "synthesis", "Synthesis"
    SHAPED = "shaped", "The verdict in the asker's schema"
    AGREEMENT = "agreement", "The judge's grouping of the answers"
    BASIS = "basis", "The basis of a change"


# Contributions that are ballots: they carry a decision (asked in JSON) and are counted for consensus.
BALLOT_KINDS = frozenset({StepKind.VOTE, StepKind.REVOTE, StepKind.TIEBREAK})
# Contributions that are not model calls (the one rule for the calls counted, stored and live).
NOT_CALLS = frozenset({StepKind.GROUNDING, StepKind.CHECK})
# Contributions whose closing block feeds the claim ledger (a re-vote's ballot feeds it by its decision).
LEDGER_KINDS = frozenset(
    {StepKind.ANSWER, StepKind.CRITIQUE, StepKind.FINAL, StepKind.CRITIQUE_FINAL, StepKind.DEBATE}
    | {StepKind.DISSENT, StepKind.VOTE}
)
# The debate rounds of teorema and adversarial (what debate = on_dissent may skip or narrow).
DEBATE_KINDS = frozenset({StepKind.DEBATE, StepKind.CRITIQUE, StepKind.FINAL, StepKind.CRITIQUE_FINAL})
# Contributions whose closing block has a CHANGE line: a position that may have moved.
CHANGE_KINDS = frozenset({StepKind.FINAL, StepKind.CRITIQUE_FINAL, StepKind.DEBATE, StepKind.DISSENT})
# The rounds whose answers the judge groups by meaning: they give each voice's latest answer.
JUDGED_KINDS = frozenset(
    {StepKind.ANSWER, StepKind.DEBATE, StepKind.FINAL, StepKind.CRITIQUE_FINAL, StepKind.VOTE, StepKind.REVOTE}
)
# Contributions a voice that may search the web searches for: its answers, its debate and its votes
# (never the basis of a change it is asked for, nor a judge's, the moderator's or the tie-breaker's call).
SEARCH_KINDS = LEDGER_KINDS | {StepKind.REVOTE}
# Contributions that state a voice's position: an ANSWER line, or a ballot's decision.
POSITION_KINDS = frozenset({StepKind.ANSWER, StepKind.VOTE})


class Status(Labelled):
    """Where a question stands; a run ends on one of the FINISHED ones."""

    QUEUED = "queued", "Queued"
    RUNNING = "running", "Running"
    DONE = "done", "Done"
    ANSWERED = "answered", "Answered directly (no panel)"
    NEEDS_REVIEW = "needs_review", "Needs human review"
    FAILED = "failed", "Failed"
    CANCELLED = "cancelled", "Cancelled"


class Held(Labelled):
    """Whether a finished question's verdict turned out right, as a person judged it (the track record)."""

    RIGHT = "right", "Right"
    WRONG = "wrong", "Wrong"
    PARTLY = "partly", "Partly right"


FINISHED = frozenset({Status.DONE, Status.ANSWERED, Status.NEEDS_REVIEW, Status.FAILED, Status.CANCELLED})


# A seat key + this + n: that seat's n-th earlier try, kept for the record when a failed run is retried.
RETIRED = "#"
# The message a run's task is cancelled with when the asker stops it: each voice it cuts off is kept with it.
CANCELLED_BY_ASKER = "the debate was cancelled before this voice finished"


class Outcome(Labelled):
    """How one contribution (one voice, one round) ended; only a done one is used."""

    DONE = "done", "Done"
    FAILED = "failed", "Failed"
    GATED = "gated", "Gated out (not an answer)"
    CANCELLED = "cancelled", "Cancelled (stopped before it finished: the text so far is kept)"
