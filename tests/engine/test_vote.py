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
        return lambda r: (
            ballot(second)
            if "vote again" in r.prompt
            else (
                "I argue for approve because the logs show it."
                if "debate" in r.prompt.lower() and "dossier" in r.prompt
                else ballot(first)
            )
        )

    fake_provider.script("model-alpha", voter("approve", "approve"))
    fake_provider.script("model-beta", voter("reject", "approve"))
    fake_provider.script("model-gamma", voter("defer", "approve"))
    spec = spec_factory(3, protocol="vote", criticality="medium", revote_on_dissent=True)
    finished = await run(spec, sink)
    assert finished.status == "done"
    assert finished.verdict == "approve"
    kinds = [e.result.kind for e in sink.of(ContributionFinished)]
    assert kinds.count("vote") == kinds.count("dissent") == kinds.count("revote") == 3


def voter(first: str, second: str = "", reasoning: str = "the logs show it", basis: str = "none"):
    """A voter that votes ``first``, argues, votes ``second`` (or ``first`` again) with ``reasoning``,
    and, asked for the basis of a change, gives ``basis``."""

    def respond(request) -> str:
        if "basis of the change" in request.prompt:
            return f"BASIS: {basis}"
        if "Decide." in request.prompt:
            return ballot(first)
        if "vote again" in request.prompt:
            return ballot(second or first, reasoning=reasoning if second else "unchanged")
        return "I keep my view: the logs show it.\nCHANGE: none | nothing new\nANSWER: as before"

    return respond


async def test_a_flip_without_a_reason_of_substance_never_turns_a_tie_into_a_consensus(
    fake_provider, spec_factory, sink
):
    for model, answer in zip(
        ("model-alpha", "model-beta", "model-gamma", "model-delta"),
        (
            voter("approve"),
            voter("approve"),
            voter("reject", "approve", "the others make good points"),
            voter("reject"),
        ),
        strict=True,
    ):
        fake_provider.script(model, answer)
    fake_provider.script("model-breaker", ballot("reject"))
    spec = spec_factory(4, protocol="vote", criticality="medium", revote_on_dissent=True)
    finished = await run(spec, sink)
    last = sink.of(ConsensusEvaluated)[-2].consensus  # the re-vote's, before the tie-breaker's record
    assert last["reached"] is False
    assert last["agreement"] == "2/4"  # the flipped vote is cast, and counts toward no group
    assert "Panelist C changed its vote without a reason of substance" in " ".join(last["notes"])
    assert finished.verdict == "reject (decided by the tie-breaker: no consensus)"
    (basis,) = [r for r in fake_provider.requests_for("model-gamma") if "basis of the change" in r.prompt]
    assert "before: “reject”; now: “approve”" in basis.prompt


async def test_a_flip_with_its_basis_given_when_asked_counts(fake_provider, spec_factory, sink):
    flipper = voter(
        "reject", "approve", "the others make good points", basis="the error rate is 0.2%, under our 1% limit"
    )
    for model, answer in zip(
        ("model-alpha", "model-beta", "model-gamma", "model-delta"),
        (voter("approve"), voter("approve"), flipper, voter("reject")),
        strict=True,
    ):
        fake_provider.script(model, answer)
    spec = spec_factory(4, protocol="vote", criticality="medium", revote_on_dissent=True)
    finished = await run(spec, sink)
    assert finished.verdict == "approve"
    assert sink.of(ConsensusEvaluated)[-1].consensus["agreement"] == "3/4"


async def test_a_ballot_naming_none_of_the_options_is_asked_again_once_then_counted_for_none(
    fake_provider, spec_factory, sink
):
    options = ("PostgreSQL", "MySQL")
    for model in ("model-alpha", "model-beta"):
        fake_provider.script(model, ballot("PostgreSQL"))
    fake_provider.script("model-gamma", ballot("Redis"), ballot("Redis, really"))
    finished = await run(spec_factory(3, protocol="vote", criticality="low", options=options), sink)
    assert finished.status == "done"
    assert len(fake_provider.requests_for("model-gamma")) == 2  # asked again once
    consensus = sink.of(ConsensusEvaluated)[-1].consensus
    assert consensus["groups"] == [
        {"decision": "PostgreSQL", "labels": ["Panelist A", "Panelist B"]},
        {"decision": "none of the options", "labels": ["Panelist C"]},
    ]
    assert consensus["agreement"] == "2/3"
    assert any("none of the options" in note for note in consensus["notes"])
    gated = [e.result for e in sink.of(ContributionFinished) if e.result.status == "gated"]
    assert not gated  # it votes: for none of the options


async def test_a_clear_decision_with_an_ambiguous_confidence_keeps_its_vote(fake_provider, spec_factory, sink):
    votes(fake_provider, "approve", "approve")
    fake_provider.script("model-gamma", 'On a 1-10 scale I am at 8. {"decision": "approve", "confidence": 8}')
    finished = await run(spec_factory(3, protocol="vote", criticality="high"), sink)
    assert finished.verdict == "approve"
    ballots = {e.result.label: e.result for e in sink.of(ContributionFinished) if e.result.kind == "vote"}
    assert ballots["Panelist C"].confidence == 0.8  # the scale it stated
    fake_provider.reset()
    votes(fake_provider, "approve", "approve")
    fake_provider.script("model-gamma", '{"decision": "approve", "confidence": 8}')
    sink.events.clear()
    finished = await run(spec_factory(3, protocol="vote", criticality="high"), sink)
    assert finished.verdict == "approve"
    consensus = sink.of(ConsensusEvaluated)[-1].consensus
    assert "Panelist C's confidence 8 is ambiguous (no scale given): none stored" in consensus["notes"]
