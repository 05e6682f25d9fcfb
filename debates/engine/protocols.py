"""The three protocols as data: which steps run, in which order, at which round index.

A plan is plain data (kind, title, who takes part, whether its calls are usually made);
engine.run holds the one table from a step's kind to the function that runs it. Round
indices are fixed by the plan (not by what happened), so a resumed run finds its stored
contributions at the same places; conditional steps (grounding, checks, revote, tie-break) keep
their index whether or not they run. A run asked for its verdict in a schema ends with a step that
writes it, after whichever step gave the verdict. The checks between rounds are planned only for a run that
asked for them when it started (``checks``), so a run started before keeps its indices.
"""

from dataclasses import dataclass

from debates.engine.spec import RunSpec
from debates.engine.vocabulary import JUDGED_KINDS, Protocol, StepKind

DEFAULT_ROUNDS = {Protocol.TEOREMA: 1, Protocol.ADVERSARIAL: 2, Protocol.VOTE: 0}


@dataclass(frozen=True)
class Step:
    index: int
    kind: StepKind
    title: str
    panel: bool = True  # every active voice takes part (else one call, by the moderator or tie-breaker)
    planned: bool = True  # counted in the calls a run usually makes (escalations and grounding are not)

    @property
    def judged(self) -> bool:
        """The judge groups this round's answers by meaning, in one more call within the round."""
        return self.panel and self.kind in JUDGED_KINDS


@dataclass(frozen=True)
class Shape:
    """What decides a plan: the protocol and the panel's settings (a RunSpec or a Panel row has them)."""

    protocol: Protocol
    rounds: int = 0
    merge_critique: bool = False
    revote_on_dissent: bool = False
    force_panel: bool = False
    facilitator_brief: bool = False
    checks: bool = False
    schema: str = ""


def plan(shape: Shape | RunSpec) -> list[Step]:
    """The steps of a run, in order; ``shape`` may be a RunSpec (it has the same fields)."""
    rounds = shape.rounds or DEFAULT_ROUNDS.get(shape.protocol, 0)
    entries: list[tuple[StepKind, str, bool, bool]] = [(StepKind.GROUNDING, "Verified maths (SymPy)", False, False)]
    if shape.facilitator_brief and shape.protocol != Protocol.ADVERSARIAL:
        entries.append((StepKind.TRIAGE, "Brief — the facilitator restates the question", False, True))
    if shape.protocol == Protocol.TEOREMA:
        entries.append((StepKind.ANSWER, "Round 0 — independent answers", True, True))
        entries += [(StepKind.DEBATE, f"Round {i} — debate on the dossier", True, True) for i in range(1, rounds + 1)]
        entries.append((StepKind.SYNTHESIS, "Moderator — synthesis", False, True))
    elif shape.protocol == Protocol.ADVERSARIAL:
        # The facilitator always writes the brief; it judges whether a panel is worth it unless the asker decided.
        entries.append((StepKind.TRIAGE, "Triage — is a panel worth it? The brief", False, True))
        entries.append((StepKind.ANSWER, "Round 1 — blind answers", True, True))
        if shape.merge_critique or rounds < 2:
            entries.append((StepKind.CRITIQUE_FINAL, "Round 2 — critique and final positions", True, True))
        else:
            # rounds - 1 rounds of cross-critique (each reads the latest positions), then final positions.
            entries += [(StepKind.CRITIQUE, f"Round {i} — cross-critique", True, True) for i in range(2, rounds + 1)]
            entries.append((StepKind.FINAL, f"Round {rounds + 1} — final positions", True, True))
        entries.append((StepKind.SYNTHESIS, "Facilitator — synthesis", False, True))
    elif shape.protocol == Protocol.VOTE:
        entries.append((StepKind.VOTE, "Vote — independent decisions", True, True))
        if shape.revote_on_dissent:
            for i in range(1, max(rounds, 1) + 1):
                suffix = f" {i}" if rounds > 1 else ""
                entries.append((StepKind.DISSENT, f"Debate on the dissent{suffix}", True, False))
                entries.append((StepKind.REVOTE, f"Re-vote{suffix}", True, False))
        entries.append((StepKind.TIEBREAK, "Tie-breaker", False, False))
    else:
        raise ValueError(f"unknown protocol {shape.protocol!r}")
    if shape.checks:
        entries = checked(entries)
    if shape.schema:  # after the run's end, whichever step ended it: the verdict in the asker's schema
        entries.append((StepKind.SHAPED, "Moderator — the verdict in the asker's schema", False, True))
    return [Step(index, kind, title, panel, planned) for index, (kind, title, panel, planned) in enumerate(entries)]


CHECKED_KINDS = frozenset(
    {StepKind.ANSWER, StepKind.DEBATE, StepKind.CRITIQUE, StepKind.CRITIQUE_FINAL, StepKind.FINAL}
)


def checked(entries: list[tuple[StepKind, str, bool, bool]]) -> list[tuple[StepKind, str, bool, bool]]:
    """After each round of a debate, a step that checks the computations it states (no call: SymPy)."""
    out: list[tuple[StepKind, str, bool, bool]] = []
    for entry in entries:
        out.append(entry)
        if entry[0] in CHECKED_KINDS:
            out.append((StepKind.CHECK, f"{entry[1].split(' — ')[0]} — numbers checked (SymPy)", False, False))
    return out


def planned_calls(steps: list[Step], voices: int, judging: bool = True) -> int:
    """Model calls of a run that goes the usual way (a five-voice teorema run: 5 + 1 + 5 + 1 + 1 = 13,
    the judge's call after each round of answers included when the panel's judge can judge).

    Escalations (re-vote, tie-breaker, a moderator's stand-in, a voice asked for the basis of a
    change) and the triage's direct answer change it; the question page shows the calls actually made.
    """
    panel_steps, solo_steps = call_steps(steps, judging)
    return panel_steps * voices + solo_steps


def call_steps(steps: list[Step], judging: bool = True) -> tuple[int, int]:
    """(panel steps, single calls) a run usually makes, for cost estimates per voice; a judged round's
    judge call counts as a single call."""
    planned = [s for s in steps if s.planned]
    judge_calls = sum(s.judged for s in planned) if judging else 0
    return sum(s.panel for s in planned), sum(not s.panel for s in planned) + judge_calls
