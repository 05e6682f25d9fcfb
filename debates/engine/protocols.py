"""The three protocols as data: which steps run, in which order, at which round index.

A step carries the function that runs it. Round indices are fixed by the plan (not by what
happened), so a resumed run finds its stored contributions at the same places; conditional
steps (grounding, revote, tie-break) keep their index whether or not they run.
"""

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from debates.engine import steps, vote
from debates.engine.events import RunFinished
from debates.engine.spec import RunSpec
from debates.engine.vocabulary import Protocol

if TYPE_CHECKING:
    from debates.engine.run import Run

Action = Callable[["Run", "Step"], Awaitable[RunFinished | None]]

DEFAULT_ROUNDS = {Protocol.TEOREMA: 1, Protocol.ADVERSARIAL: 2, Protocol.VOTE: 0}


@dataclass(frozen=True)
class Step:
    index: int
    kind: str  # grounding | triage | answer | debate | critique | final | critique_final | vote
    # | dissent | revote | tiebreak | synthesis
    title: str
    action: Action
    panel: bool = True  # every active voice takes part (else one call, by the moderator or tie-breaker)
    planned: bool = True  # counted in the calls a run usually makes (escalations and grounding are not)


@dataclass(frozen=True)
class Shape:
    """What decides a plan: the protocol and the panel's settings (a RunSpec or a Panel row has them)."""

    protocol: Protocol
    rounds: int = 0
    merge_critique: bool = False
    revote_on_dissent: bool = False
    force_panel: bool = False


def plan(shape: Shape | RunSpec) -> list[Step]:
    """The steps of a run, in order; ``shape`` may be a RunSpec (it has the same fields)."""
    rounds = shape.rounds or DEFAULT_ROUNDS.get(shape.protocol, 0)
    entries: list[tuple[str, str, Action, bool, bool]] = [
        ("grounding", "Verified maths (SymPy)", steps.grounding, False, False)
    ]
    if shape.protocol == Protocol.TEOREMA:
        entries.append(("answer", "Round 0 — independent answers", steps.answer, True, True))
        entries += [
            ("debate", f"Round {i} — debate on the dossier", steps.debate, True, True) for i in range(1, rounds + 1)
        ]
        entries.append(("synthesis", "Moderator — synthesis", steps.synthesis, False, True))
    elif shape.protocol == Protocol.ADVERSARIAL:
        entries.append(("triage", "Triage — is a panel worth it?", steps.triage, False, not shape.force_panel))
        entries.append(("answer", "Round 1 — blind answers", steps.answer, True, True))
        if shape.merge_critique or rounds < 2:
            entries.append(("critique_final", "Round 2 — critique and final positions", steps.critique, True, True))
        else:
            # rounds - 1 rounds of cross-critique (each reads the latest positions), then final positions.
            entries += [
                ("critique", f"Round {i} — cross-critique", steps.critique, True, True) for i in range(2, rounds + 1)
            ]
            entries.append(("final", f"Round {rounds + 1} — final positions", steps.final, True, True))
        entries.append(("synthesis", "Facilitator — synthesis", steps.synthesis, False, True))
    elif shape.protocol == Protocol.VOTE:
        entries.append(("vote", "Vote — independent decisions", vote.vote, True, True))
        if shape.revote_on_dissent:
            for i in range(1, max(rounds, 1) + 1):
                suffix = f" {i}" if rounds > 1 else ""
                entries.append(("dissent", f"Debate on the dissent{suffix}", vote.dissent, True, False))
                entries.append(("revote", f"Re-vote{suffix}", vote.revote, True, False))
        entries.append(("tiebreak", "Tie-breaker", vote.tiebreak, False, False))
    else:
        raise ValueError(f"unknown protocol {shape.protocol!r}")
    return [
        Step(index, kind, title, action, panel, planned)
        for index, (kind, title, action, panel, planned) in enumerate(entries)
    ]


def planned_calls(steps_: list[Step], voices: int) -> int:
    """Model calls of a run that goes the usual way (a five-voice teorema run: 5 + 5 + 1 = 11).

    Escalations (re-vote, tie-breaker, a moderator's stand-in) and the triage's direct answer
    change it; the question page shows the calls actually made.
    """
    panel_steps, solo_steps = call_steps(steps_)
    return panel_steps * voices + solo_steps


def call_steps(steps_: list[Step]) -> tuple[int, int]:
    """(panel steps, single-call steps) a run usually makes, for cost estimates per voice."""
    planned = [s for s in steps_ if s.planned]
    return sum(s.panel for s in planned), sum(not s.panel for s in planned)
