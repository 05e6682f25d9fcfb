"""The vote protocol's steps: structured votes, consensus, debate of the dissent, escalation.

Plain functions over a ``Run`` like every protocol's steps. A failed voter does not vote: the
threshold applies to the votes cast, and the result says how many that was.
"""

import json
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from debates.engine import consensus, dossier, prompts, steps
from debates.engine.events import ConsensusEvaluated, ContributionResult, RunFinished
from debates.engine.reading import gates
from debates.engine.reading.ballot import Ballot, VoteParseError, parse_ballot
from debates.engine.vocabulary import Method, Status
from debates.providers.base import Message

if TYPE_CHECKING:
    from debates.engine.protocols import Step
    from debates.engine.run import Run


def enrich(run: "Run", result: ContributionResult) -> ContributionResult:
    """Structured fields of a ballot, and the sycophancy flag of a changed vote, before storing."""
    parsed = parse_ballot(result.label, result.text, run.spec.options)
    result = replace(result, decision=parsed.decision, confidence=parsed.confidence, reasoning=parsed.reasoning)
    earlier = run.latest("vote", "revote")
    before = run.results[earlier.index].get(result.seat) if earlier else None
    changed = before is not None and not consensus.relation(before.decision, result.decision, run.spec.similarity).same
    if result.kind == "revote" and changed and not gates.substantive(result.reasoning):
        result = replace(result, flags=(*result.flags, "sycophancy: changed vote without giving reasons"))
    return result


def ballot_prompt(run: "Run", step_kind: str, method: str = Method.NONE, **values: str) -> list[Message]:
    role = "tiebreaker" if step_kind == "tiebreak" else "panelist"
    return prompts.messages(step_kind, method, role=role, brief=run.brief(),
                            options_block=prompts.options_block(run.spec.options), **values)  # fmt: skip


async def vote(run: "Run", step: "Step") -> RunFinished | None:
    """Every voter decides on its own."""
    results = await run.panel_round(
        step, lambda seat, _position: ballot_prompt(run, "vote", method=seat.method), check=ballot_problem(run)
    )
    return await judge(run, results)


async def dissent(run: "Run", step: "Step") -> None:
    """No consensus yet: every voter reads the latest ballots with their reasons and argues."""
    await steps.discuss(run, step, run.latest("vote", "revote", before=step))


async def revote(run: "Run", step: "Step") -> RunFinished | None:
    """Vote again after the debate of the dissent."""
    arguments = run.latest("dissent", before=step)
    results = await run.panel_round(
        step,
        lambda seat, position: ballot_prompt(
            run, "revote", method=seat.method, dossier=run.fenced(arguments, rotation=position)
        ),
        check=ballot_problem(run),
    )
    return await judge(run, results)


async def judge(run: "Run", results: dict[str, ContributionResult]) -> RunFinished | None:
    """The run ends here when the ballots reach the threshold; otherwise the next step decides."""
    ballots = [ballot(r) for r in results.values()]
    run.consensus = consensus.evaluate(
        ballots, run.spec.criticality, run.spec.similarity, options=run.spec.options, seats=len(run.spec.seats)
    )
    await run.sink.emit(ConsensusEvaluated(run.consensus.as_dict()))
    return decided(run, run.consensus.decision or "", "") if run.consensus.reached else None


async def tiebreak(run: "Run", step: "Step") -> RunFinished:
    """No consensus after every vote: a tie-breaker decides, or (high criticality) a person."""
    if run.consensus is not None and run.consensus.escalation == "tie_breaker":
        return await escalate(run, step)
    return review(run)


async def escalate(run: "Run", step: "Step") -> RunFinished:
    breaker = run.spec.tie_breaker
    if breaker is None:
        return review(run, "no tie-breaker is configured for this panel")
    ballots_step = run.latest("vote", "revote")
    assert ballots_step is not None, "the tie-breaker runs only after a vote step"
    votes = "\n\n".join(
        dossier.fence(b.label, json.dumps({"decision": b.decision, "reasoning": b.reasoning}, ensure_ascii=False))
        for b in (ballot(r) for r in run.results[ballots_step.index].values())
    )
    result = await run.solo(
        step,
        breaker,
        ballot_prompt(run, "tiebreak", dossier=dossier.scrub(votes, run.spec.all_names())),
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


def decided(run: "Run", decision: str, suffix: str) -> RunFinished:
    summary = summary_of(run)
    return RunFinished(
        Status.DONE,
        verdict=f"{decision}{suffix}",
        synthesis=f"**Decision:** {decision}{suffix}\n\n{counted(summary)}",
        reveal=run.lineup.reveal(),
        evidence_strength=run.lineup.heterogeneity().strength,
    )


def review(run: "Run", why: str = "") -> RunFinished:
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


def summary_of(run: "Run") -> dict[str, Any]:
    """The consensus of the latest ballots: every vote step evaluates it before a later step reads it."""
    assert run.consensus is not None, "no vote step has evaluated the consensus yet"
    return run.consensus.as_dict()


def counted(summary: dict[str, Any]) -> str:
    """The agreement in words, on the votes that exist (the page shows the grouping's notes)."""
    line = f"Agreement {summary['agreement']} (threshold {summary['threshold']})"
    if summary.get("seats", summary["votes"]) > summary["votes"]:
        line += f", on the {summary['votes']} votes cast of {summary['seats']} voters: a failed voter does not vote"
    return line + "."


def ballot_problem(run: "Run") -> Callable[[str], str]:
    """The gate of a ballot step: a text with no usable decision is not a vote."""

    def check(text: str) -> str:
        try:
            parse_ballot("", text, run.spec.options)
        except VoteParseError as error:
            return f"unusable vote: {error}"
        return ""

    return check


def ballot(result: ContributionResult) -> Ballot:
    return Ballot(result.label, result.decision, result.confidence, result.reasoning)
