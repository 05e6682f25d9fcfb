"""The vote protocol's steps: structured votes, consensus, debate of the dissent, escalation.

Plain functions over a ``Run`` like every protocol's steps. A failed voter does not vote: the
threshold applies to the votes cast, and the result says how many that was. Free-text decisions
are grouped by meaning (the round's agreement, judged); the asker's options are counted exactly.
A change of vote without a reason of substance counts toward no group.
"""

import json
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from debates.engine import consensus, dossier, prompts, sameness, steps
from debates.engine.context import Run
from debates.engine.events import ConsensusEvaluated, ContributionResult, RunFinished
from debates.engine.protocols import Step
from debates.engine.reading.ballot import Ballot, VoteParseError, parse_ballot
from debates.engine.spec import Seat
from debates.engine.vocabulary import Status, StepKind
from debates.providers.base import Message


def enrich(run: Run, result: ContributionResult) -> ContributionResult:
    """A ballot's fields before it is stored, and a changed vote as a change of position."""
    parsed = consensus.on_options(parse_ballot(result.label, result.text), run.spec.options)
    record: dict[str, Any] = {"note": parsed.note} if parsed.note else {}
    result = replace(result, decision=parsed.decision, confidence=parsed.confidence, reasoning=parsed.reasoning)
    earlier = run.latest(StepKind.VOTE, StepKind.REVOTE)
    before = run.results[earlier.index].get(result.seat) if earlier else None
    if result.kind == StepKind.REVOTE and before is not None:
        changed = not sameness.relation(before.decision, result.decision, run.spec.similarity).same
        record["change"] = {
            "degree": "total" if changed else "none",
            "reason": result.reasoning if changed else "",
            "before": before.decision,
            "after": result.decision,
        }
    return replace(result, ledger={**result.ledger, **record})


def ballot_prompt(run: Run, step_kind: StepKind, seat: Seat, **values: str) -> list[Message]:
    role = "tiebreaker" if step_kind == StepKind.TIEBREAK else "panelist"
    options = prompts.options_block(run.spec.options)
    return prompts.messages(step_kind, seat.method, role=role, brief=run.brief(seat), options_block=options, **values)


async def vote(run: Run, step: Step) -> RunFinished | None:
    """Every voter decides on its own."""
    await run.panel_round(
        step,
        lambda seat, _position: ballot_prompt(run, StepKind.VOTE, seat),
        check=ballot_problem(run),
        ask_again=off_options(run),
    )
    return await tally(run, step)


async def dissent(run: Run, step: Step) -> None:
    """No consensus yet: every voter reads the latest ballots with their reasons and argues."""
    await steps.discuss(run, step, run.latest(StepKind.VOTE, StepKind.REVOTE, before=step))


async def revote(run: Run, step: Step) -> RunFinished | None:
    """Vote again after the debate of the dissent."""
    arguments = run.latest(StepKind.DISSENT, before=step)
    await run.panel_round(
        step,
        lambda seat, position: ballot_prompt(
            run, StepKind.REVOTE, seat, dossier=run.fenced(arguments, rotation=position)
        ),
        check=ballot_problem(run),
        ask_again=off_options(run),
    )
    return await tally(run, step)


async def tally(run: Run, step: Step) -> RunFinished | None:
    """The run ends here when the ballots reach the threshold; otherwise the next step decides.

    Without the asker's options the ballots are grouped as the round's agreement groups them (by
    meaning where the judge could); a voter whose change of vote has no reason of substance casts
    a vote that counts toward no group, so a sycophantic flip cannot turn a tie into a consensus.
    """
    ballots = {r.label: ballot(r) for r in run.results[step.index].values()}
    agreement = run.agreements.get(step.index)
    grouping = None
    if agreement is not None:
        # A group is named as most of its voters wrote their decision, not in the judge's words.
        members = [[ballots[label] for label in g.labels if label in ballots] for g in agreement.groups]
        groups = [(consensus.common_form(voters), tuple(voters)) for voters in members if voters]
        groups += [(ballots[label].decision, (ballots[label],)) for label in agreement.unplaced if label in ballots]
        weightless = tuple(ballots[label] for label in agreement.unexplained if label in ballots)
        grouping = consensus.Grouping(tuple(groups), weightless, agreement.method, agreement.notes)
    run.consensus = consensus.evaluate(
        list(ballots.values()),
        run.spec.criticality,
        run.spec.similarity,
        options=run.spec.options,
        seats=len(run.spec.seats),
        grouping=grouping,
    )
    await run.sink.emit(ConsensusEvaluated(run.consensus.as_dict()))
    return decided(run, run.consensus.decision or "", "") if run.consensus.reached else None


async def tiebreak(run: Run, step: Step) -> RunFinished:
    """No consensus after every vote: a tie-breaker decides, or (high criticality) a person."""
    if run.consensus is not None and run.consensus.escalation == "tie_breaker":
        return await escalate(run, step)
    return review(run)


async def escalate(run: Run, step: Step) -> RunFinished:
    breaker = run.spec.tie_breaker
    if breaker is None:
        return review(run, "no tie-breaker is configured for this panel")
    ballots_step = run.latest(StepKind.VOTE, StepKind.REVOTE)
    assert ballots_step is not None, "the tie-breaker runs only after a vote step"
    votes = "\n\n".join(
        dossier.fence(b.label, json.dumps({"decision": b.decision, "reasoning": b.reasoning}, ensure_ascii=False))
        for b in (ballot(r) for r in run.results[ballots_step.index].values())
    )
    result = await run.solo(
        step,
        breaker,
        ballot_prompt(run, StepKind.TIEBREAK, breaker, dossier=dossier.scrub(votes, run.spec.all_names())),
        check=ballot_problem(run),
    )
    if not result.ok:
        return review(run, f"the tie-breaker failed: {result.error}")
    decided_by = ballot(result)
    record = {
        **summary_of(run),
        "tie_breaker": {
            "decision": decided_by.decision,
            "confidence": decided_by.confidence,
            "reasoning": decided_by.reasoning,
        },
    }
    await run.sink.emit(ConsensusEvaluated(record))
    return decided(run, decided_by.decision, " (decided by the tie-breaker: no consensus)")


def decided(run: Run, decision: str, suffix: str) -> RunFinished:
    summary = summary_of(run)
    return RunFinished(
        Status.DONE,
        verdict=f"{decision}{suffix}",
        synthesis=f"**Decision:** {decision}{suffix}\n\n{counted(summary)}",
        reveal=run.lineup.reveal(),
        evidence_strength=run.lineup.heterogeneity().strength,
    )


def review(run: Run, why: str = "") -> RunFinished:
    summary = summary_of(run)
    reason = why or (
        f"agreement {summary['agreement']} is below the {run.spec.criticality} threshold {summary['threshold']}"
    )
    return RunFinished(
        Status.NEEDS_REVIEW,
        verdict=f"No consensus: {reason}. Needs human review.",
        synthesis=f"**No consensus.** {reason[0].upper() + reason[1:]}; a person decides.\n\n{counted(summary)}",
        reveal=run.lineup.reveal(),
        evidence_strength=run.lineup.heterogeneity().strength,
    )


def summary_of(run: Run) -> dict[str, Any]:
    """The consensus of the latest ballots: every vote step evaluates it before a later step reads it."""
    assert run.consensus is not None, "no vote step has evaluated the consensus yet"
    return run.consensus.as_dict()


def counted(summary: dict[str, Any]) -> str:
    """The agreement in words, on the votes that exist (the page shows the grouping's notes)."""
    line = f"Agreement {summary['agreement']} (threshold {summary['threshold']})"
    if summary.get("seats", summary["votes"]) > summary["votes"]:
        line += f", on the {summary['votes']} votes cast of {summary['seats']} voters: a failed voter does not vote"
    return line + "."


def ballot_problem(run: Run) -> Callable[[str], str]:
    """The gate of a ballot step: a text with no usable decision is not a vote."""

    def check(text: str) -> str:
        try:
            parse_ballot("", text)
        except VoteParseError as error:
            return f"unusable vote: {error}"
        return ""

    return check


def off_options(run: Run) -> Callable[[str], str]:
    """Why a ballot is worth asking for once more: it names none of the asker's options (kept the
    second time, as a vote for none of them)."""

    def check(text: str) -> str:
        if run.spec.options and consensus.on_options(parse_ballot("", text), run.spec.options).off_options:
            return "the decision is none of the options: copy one exactly"
        return ""

    return check


def ballot(result: ContributionResult) -> Ballot:
    return Ballot(result.label, result.decision, result.confidence, result.reasoning, result.ledger.get("note", ""))
