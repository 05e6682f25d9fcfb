"""The vote protocol's steps (seed 001): structured votes, consensus, re-vote, escalation.

A mixin of the Engine: the steps use its panel rounds, dossier and sink like every protocol.
"""

import json
from dataclasses import replace

from debates.engine import consensus, dossier, gates, prompts
from debates.engine.events import ConsensusEvaluated, RunFinished, VoteResult
from debates.engine.protocols import Step

BALLOT_KINDS = {"vote", "revote", "tiebreak"}


class VoteSteps:
    def enrich(self, result: VoteResult) -> VoteResult:
        """Structured fields of a vote, and the sycophancy flag of a changed vote, before storing."""
        if not result.ok or result.kind not in BALLOT_KINDS:
            return result
        parsed = consensus.parse_ballot(result.label, result.text)
        result = replace(result, decision=parsed.decision, confidence=parsed.confidence, reasoning=parsed.reasoning)
        before = self.done.get("vote", {}).get(result.seat)
        changed = before and consensus.normalise(before.decision) != consensus.normalise(result.decision)
        if result.kind == "revote" and changed and not gates.REASON.search(result.reasoning):
            result = replace(result, flags=(*result.flags, "sycophancy: changed vote without giving reasons"))
        return result

    async def step_vote(self, step: Step) -> RunFinished | None:
        brief = self.brief()
        results = await self.panel_round(
            step, lambda s: prompts.messages(s.method, "vote", brief=brief), check=ballot_problem
        )
        return await self.judge(results, last=not self.spec.revote_on_dissent)

    async def step_dissent(self, step: Step) -> None:
        tally = self.fenced("vote")
        await self.panel_round(
            step,
            lambda s: prompts.messages(s.method, "debate", brief=self.brief(), label=s.label, dossier=tally),
            check=gates.phantom,
        )

    async def step_revote(self, step: Step) -> RunFinished | None:
        arguments = self.fenced("dissent")
        results = await self.panel_round(
            step,
            lambda s: prompts.messages(s.method, "revote", brief=self.brief(), dossier=arguments),
            check=ballot_problem,
        )
        return await self.judge(results, last=True)

    async def judge(self, results: dict[str, VoteResult], last: bool) -> RunFinished | None:
        ballots = [ballot(r) for r in results.values()]
        self.consensus = consensus.evaluate(ballots, self.spec.criticality, self.spec.similarity)
        await self.sink.emit(ConsensusEvaluated(self.consensus.as_dict()))
        if self.consensus.reached:
            return self.decided(self.consensus.decision or "", "")
        if not last:
            return None
        return await self.escalate() if self.consensus.escalation == "tie_breaker" else self.review()

    async def step_tiebreak(self, step: Step) -> RunFinished:
        return self.review()  # only reached when nothing decided before

    async def escalate(self) -> RunFinished:
        breaker = self.spec.tie_breaker
        if breaker is None:
            return self.review("no tie-breaker is configured for this panel")
        step = next(s for s in self.steps if s.kind == "tiebreak")
        votes = "\n\n".join(
            dossier.fence(b.label, json.dumps({"decision": b.decision, "reasoning": b.reasoning}))
            for b in (ballot(r) for k in ("revote", "vote") for r in self.done.get(k, {}).values())
        )
        result = await self.solo(
            step,
            breaker,
            prompts.messages(
                "none", "tiebreak", brief=self.brief(), dossier=dossier.scrub(votes, self.spec.all_names())
            ),
            check=ballot_problem,
        )
        if not result.ok:
            return self.review(f"the tie-breaker failed: {result.error}")
        decided = ballot(result)
        record = {
            **self.consensus.as_dict(),
            "tie_breaker": {
                "decision": decided.decision,
                "confidence": decided.confidence,
                "reasoning": decided.reasoning,
            },
        }
        await self.sink.emit(ConsensusEvaluated(record))
        return self.decided(decided.decision, " (decided by the tie-breaker: no consensus)")

    def decided(self, decision: str, suffix: str) -> RunFinished:
        agreement = self.consensus.as_dict()["agreement"] if self.consensus else ""
        return RunFinished(
            "done",
            verdict=f"{decision}{suffix}",
            synthesis=f"**Decision:** {decision}{suffix}\n\n"
            f"Agreement {agreement} (threshold {self.consensus.as_dict()['threshold']}).",
            reveal=self.panel.reveal(),
            evidence_strength=self.panel.heterogeneity().strength,
        )

    def review(self, why: str = "") -> RunFinished:
        c = self.consensus.as_dict()
        reason = why or f"agreement {c['agreement']} is below the {self.spec.criticality} threshold {c['threshold']}"
        return RunFinished(
            "needs_review",
            verdict=f"No consensus: {reason}. Needs human review.",
            synthesis=f"**No consensus.** {reason[0].upper() + reason[1:]}; a person decides.",
            reveal=self.panel.reveal(),
            evidence_strength=self.panel.heterogeneity().strength,
        )


def ballot_problem(text: str) -> str:
    try:
        consensus.parse_ballot("", text)
    except consensus.VoteParseError as error:
        return f"unusable vote: {error}"
    return ""


def ballot(result: VoteResult) -> consensus.Ballot:
    return consensus.Ballot(result.label, result.decision, result.confidence or 0.0, result.reasoning)
