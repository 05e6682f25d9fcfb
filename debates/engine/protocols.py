"""The three protocols as data: which steps run, in which order, at which round index.

Round indices are fixed by the plan (not by what happened), so a resumed run finds its stored
votes at the same places. Conditional steps (revote, tie-break, grounding) keep their index
whether or not they run.
"""

from dataclasses import dataclass

from debates.engine.spec import RunSpec


@dataclass(frozen=True)
class Step:
    index: int
    kind: str  # grounding | triage | answer | vote | debate | critique | final | critique_final
    # | dissent | revote | tiebreak | synthesis
    title: str
    panel: bool = True  # every active voice takes part (else: one call by moderator/tie-breaker)


DEFAULT_ROUNDS = {"teorema": 1, "adversarial": 2, "vote": 0}


def plan(spec: RunSpec) -> list[Step]:
    kinds: list[tuple[str, str, bool]] = [("grounding", "Verified maths (SymPy)", False)]
    rounds = spec.rounds or DEFAULT_ROUNDS[spec.protocol]
    if spec.protocol == "teorema":
        kinds.append(("answer", "Round 0 — independent answers", True))
        kinds += [("debate", f"Round {i} — debate on the dossier", True) for i in range(1, rounds + 1)]
        kinds.append(("synthesis", "Moderator — synthesis", False))
    elif spec.protocol == "adversarial":
        kinds.append(("triage", "Triage — is a panel worth it?", False))
        kinds.append(("answer", "Round 1 — blind answers", True))
        if spec.merge_critique or rounds < 2:
            kinds.append(("critique_final", "Round 2 — critique and final positions", True))
        else:
            kinds.append(("critique", "Round 2 — cross-critique", True))
            kinds.append(("final", "Round 3 — final positions", True))
        kinds.append(("synthesis", "Facilitator — synthesis", False))
    elif spec.protocol == "vote":
        kinds.append(("vote", "Vote — independent decisions", True))
        if spec.revote_on_dissent:
            kinds.append(("dissent", "Debate on the dissent", True))
            kinds.append(("revote", "Re-vote", True))
        kinds.append(("tiebreak", "Tie-breaker", False))
    else:
        raise ValueError(f"unknown protocol {spec.protocol!r}")
    return [Step(i, kind, title, panel) for i, (kind, title, panel) in enumerate(kinds)]


def planned_calls(
    protocol: str, voices: int, rounds: int = 0, merge_critique: bool = False, force_panel: bool = False
) -> int:
    """Model calls of a run that goes the usual way (a five-voice teorema run: 5 + 5 + 1 = 11).

    Vote escalations (re-vote, tie-breaker) and the triage's direct answer change it; the
    question page shows the calls actually made.
    """
    rounds = rounds or DEFAULT_ROUNDS[protocol]
    if protocol == "teorema":
        return voices * (1 + rounds) + 1
    if protocol == "adversarial":
        panel_rounds = 2 if merge_critique or rounds < 2 else 3
        return (0 if force_panel else 1) + voices * panel_rounds + 1
    return voices
