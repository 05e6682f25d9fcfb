"""The vote protocol: structured votes, consensus on exact fractions, escalation."""

import json

from debates.engine.events import ConsensusEvaluated, ContributionFinished
from debates.engine.run import run
from tests.fakes.provider_server import Script


def ballot(decision: str, confidence: float = 0.8, reasoning: str = "because the logs show it") -> str:
    return "```json\n" + json.dumps({"decision": decision, "confidence": confidence, "reasoning": reasoning}) + "\n```"


def votes(server, *decisions: str, breaker: str = "approve") -> None:
    for model, decision in zip(("model-alpha", "model-beta", "model-gamma", "model-delta"), decisions, strict=False):
        server.script(model, ballot(decision))
    server.script("model-breaker", ballot(breaker))


async def test_consensus_reached_gives_the_winning_decision(fake_provider, spec_factory, sink):
    votes(fake_provider, "Approve", "approve.", "reject")
    finished = await run(spec_factory(3, protocol="vote", criticality="low"), sink)
    assert finished.status == "done"
    assert finished.verdict == "Approve"
    consensus = sink.of(ConsensusEvaluated)[0].consensus
    assert consensus["agreement"] == "2/3"
    assert consensus["dissenters"] == ["Panelist C"]


async def test_high_criticality_without_consensus_needs_human_review(fake_provider, spec_factory, sink):
    votes(fake_provider, "approve", "approve", "reject")
    finished = await run(spec_factory(3, protocol="vote", criticality="high"), sink)
    assert finished.status == "needs_review"
    assert "2/3" in finished.verdict
    assert "4/5" in finished.verdict
    assert not fake_provider.requests_for("model-breaker")


async def test_medium_criticality_without_consensus_goes_to_the_tie_breaker(fake_provider, spec_factory, sink):
    votes(fake_provider, "approve", "reject", "defer", breaker="defer")
    finished = await run(spec_factory(3, protocol="vote", criticality="medium"), sink)
    assert finished.status == "done"
    assert finished.verdict == "defer (decided by the tie-breaker: no consensus)"
    assert sink.of(ConsensusEvaluated)[-1].consensus["tie_breaker"]["decision"] == "defer"


async def test_an_unparseable_vote_does_not_vote_and_says_why(fake_provider, spec_factory, sink):
    votes(fake_provider, "approve", "approve", "approve", "x")
    fake_provider.script("model-delta", "I think we should approve, honestly.")
    finished = await run(spec_factory(4, protocol="vote", criticality="low", failure_policy="quorum", quorum=3), sink)
    assert finished.status == "done"
    gated = [e.result for e in sink.of(ContributionFinished) if e.result.status == "gated"]
    assert len(gated) == 1
    assert "no JSON object" in gated[0].error
    assert sink.of(ConsensusEvaluated)[0].consensus["votes"] == 3


async def test_a_failed_provider_does_not_vote(fake_provider, spec_factory, sink):
    votes(fake_provider, "approve", "approve", "approve")
    fake_provider.script("model-gamma", Script(status=401))
    finished = await run(spec_factory(3, protocol="vote", criticality="low", failure_policy="quorum", quorum=2), sink)
    assert finished.status == "done"
    assert sink.of(ConsensusEvaluated)[0].consensus["agreement"] == "2/2"


async def test_dissent_gets_one_debate_round_then_a_revote(fake_provider, spec_factory, sink):
    def voter(first: str, second: str):
        return lambda r: ballot(second) if "vote again" in r.prompt else (
            "I argue for approve because the logs show it." if "debate" in r.prompt.lower() and "dossier" in
            r.prompt else ballot(first))  # fmt: skip

    fake_provider.script("model-alpha", voter("approve", "approve"))
    fake_provider.script("model-beta", voter("reject", "approve"))
    fake_provider.script("model-gamma", voter("defer", "approve"))
    spec = spec_factory(3, protocol="vote", criticality="medium", revote_on_dissent=True)
    finished = await run(spec, sink)
    assert finished.status == "done"
    assert finished.verdict == "approve"
    kinds = [e.result.kind for e in sink.of(ContributionFinished)]
    assert kinds.count("vote") == kinds.count("dissent") == kinds.count("revote") == 3
