"""The verdict says only what the panel said: every round reaches the judge once, failures are
disclosed, nobody votes twice, each role is told what it is, and nothing stalls on a dead voice."""

import json
import re

import pytest

from debates.engine.events import ContributionFinished, PanelChanged, RunFinished
from debates.engine.run import run
from tests.fakes.provider_server import FOREVER, Script

MODELS = ("model-alpha", "model-beta", "model-gamma")
SYNTHESIS = "## Consensus\nReplicas.\n\n## Disagreements\nNone.\n\n## Verdict\nUse read replicas."
HIGH_STAKES = json.dumps({"stakes": "high", "panel": True, "reason": "money", "direct_answer": ""})


def marked(index: int):
    """Every contribution carries a unique, name-free mark: voice index and request number."""
    return lambda r: f"MARK-{index}-{r.number}: replicas, because reads dominate; fails if writes triple."


def judge(r) -> str:
    return HIGH_STAKES if "facilitator of an expert panel" in r.prompt else SYNTHESIS


@pytest.fixture
def marking(fake_provider):
    for index, model in enumerate(MODELS):
        fake_provider.script(model, marked(index))
    fake_provider.script("model-moderator", judge)
    fake_provider.script("model-breaker", judge)
    return fake_provider


@pytest.mark.parametrize("rounds", range(7))
@pytest.mark.parametrize("protocol", ["teorema", "adversarial"])
async def test_every_round_reaches_the_moderator_exactly_once(marking, spec_factory, sink, protocol, rounds):
    finished = await run(spec_factory(3, protocol=protocol, rounds=rounds, force_panel=True), sink)
    assert finished.status == "done"
    synthesis = marking.requests_for("model-moderator")[-1].prompt
    for index, model in enumerate(MODELS):
        calls = len(marking.requests_for(model))
        assert calls >= 2
        for number in range(1, calls + 1):
            assert synthesis.count(f"MARK-{index}-{number}:") == 1, (model, number)


async def test_two_debate_rounds_are_kept_apart_and_the_second_reads_the_first(marking, spec_factory, sink):
    await run(spec_factory(3, rounds=2), sink)
    second_debate = marking.requests_for("model-alpha")[2].prompt
    assert "MARK-1-2:" in second_debate  # beta's first debate reply
    assert "MARK-1-1:" not in second_debate  # not the blind answers again


async def test_each_reviewer_reads_the_dossier_in_its_own_order(marking, spec_factory, sink):
    await run(spec_factory(3), sink)
    firsts = set()
    for model in MODELS:
        debate = marking.requests_for(model)[1].prompt
        firsts.add(re.search(r"<<<BEGIN (Panelist \w)", debate).group(1))
    assert firsts == {"Panelist A", "Panelist B", "Panelist C"}


async def test_a_degraded_vote_never_lets_one_model_vote_twice(fake_provider, spec_factory, sink):
    fake_provider.script("model-alpha", '{"decision": "PostgreSQL", "confidence": 0.8, "reasoning": "joins"}')
    fake_provider.script("model-beta", '{"decision": "MongoDB", "confidence": 0.7, "reasoning": "documents"}')
    fake_provider.script("model-gamma", Script(status=401))
    finished = await run(spec_factory(3, protocol="vote", criticality="low", failure_policy="degrade"), sink)
    assert not finished.verdict.startswith("PostgreSQL")
    assert len(fake_provider.requests_for("model-alpha")) == 1
    assert not [key for key in finished.reveal if key.endswith("~")]
    report = sink.of(PanelChanged)[-1].panel_run
    assert any("does not vote" in line for line in report["degradations"])
    assert "2 votes cast of 3 voters" in finished.synthesis


async def test_a_stand_in_on_another_voices_model_makes_the_evidence_weak(marking, spec_factory, sink):
    marking.script("model-beta", Script(status=401))
    finished = await run(spec_factory(3, failure_policy="degrade"), sink)
    assert finished.status == "done"
    assert finished.evidence_strength == "weak"
    report = sink.of(PanelChanged)[-1].panel_run
    assert report["evidence"] == "weak"
    assert "stand-in" in report["note"]


async def test_flags_truncations_and_degradations_reach_the_moderator(marking, spec_factory, sink):
    marking.script("model-beta", Script(status=401))
    marking.script("model-gamma", lambda r: "Replicas. Confidence: 80%." if r.number == 1 else "I agree with all.")
    await run(spec_factory(3, failure_policy="degrade"), sink)
    synthesis = marking.requests_for("model-moderator")[-1].prompt
    assert "What to weigh besides the text" in synthesis
    assert "Panelist B failed" in synthesis
    assert "confidence theatre" in synthesis


@pytest.mark.parametrize("wire", ["openai", "anthropic", "gemini"])
async def test_an_answer_cut_off_by_the_token_limit_is_flagged_and_the_moderator_is_told(
    marking, spec_factory, sink, wire
):
    marking.script("model-beta", Script(answer=marked(1), finish="length"))
    await run(spec_factory(3, wires=["openai", wire, "openai"]), sink)
    beta = [e.result for e in sink.of(ContributionFinished) if e.result.seat == "p2"]
    assert all(any(flag.startswith("truncated") for flag in r.flags) for r in beta)
    assert "truncated: cut off by the token limit" in marking.requests_for("model-moderator")[-1].prompt


async def test_each_role_gets_its_own_system_prompt(marking, spec_factory, sink):
    await run(spec_factory(3, protocol="adversarial", criticality="medium"), sink)
    panelist = marking.requests_for("model-alpha")[0].system
    assert "one voice on a panel" in panelist
    triage, synthesis = marking.requests_for("model-moderator")
    for judge_request in (triage, synthesis):
        assert "one voice on a panel" not in judge_request.system
        assert "facilitator" in judge_request.system


async def test_triage_is_told_the_criticality_and_a_high_one_always_opens_the_panel(marking, spec_factory, sink):
    await run(spec_factory(2, protocol="adversarial", criticality="low"), sink)
    assert "criticality **low**" in marking.requests_for("model-moderator")[0].prompt
    marking.reset()
    for index, model in enumerate(MODELS):
        marking.script(model, marked(index))
    low_stakes = json.dumps({"stakes": "low", "panel": False, "reason": "trivia", "direct_answer": "Paris."})
    marking.script("model-moderator", lambda r: low_stakes if "facilitator of an expert" in r.prompt else SYNTHESIS)
    finished = await run(spec_factory(2, protocol="adversarial", criticality="high"), sink)
    assert finished.status == "done"  # the facilitator's "low stakes, Paris." does not end a high-stakes run
    (triage,) = [r for r in marking.requests_for("model-moderator") if "facilitator of an expert" in r.prompt]
    assert "Decide whether this question deserves the panel" not in triage.prompt


async def test_the_tie_breaker_is_told_it_is_the_tie_breaker(fake_provider, spec_factory, sink):
    for model, decision in zip(MODELS, ("approve", "reject", "defer"), strict=True):
        fake_provider.script(model, json.dumps({"decision": decision, "confidence": 0.8, "reasoning": "logs"}))
    fake_provider.script("model-breaker", '{"decision": "defer", "confidence": 0.6, "reasoning": "risk"}')
    await run(spec_factory(3, protocol="vote", criticality="medium"), sink)
    breaker = fake_provider.requests_for("model-breaker")[0]
    assert "tie-breaker" in breaker.system
    assert "one voice on a panel" not in breaker.system


async def test_a_failed_moderator_hands_the_synthesis_to_a_disclosed_stand_in(marking, spec_factory, sink):
    marking.script("model-moderator", Script(status=500))
    finished = await run(spec_factory(3), sink)
    assert finished.status == "done"
    assert finished.verdict == "Use read replicas."
    assert marking.requests_for("model-breaker")  # the tie-breaker stood in
    assert finished.reveal["moderator~"]["model"] == "model-breaker"
    report = sink.of(PanelChanged)[-1].panel_run
    assert any("moderator failed" in line and "stand-in" in line for line in report["degradations"])


async def test_a_moderator_without_a_usable_stand_in_fails_keeping_the_panels_work(marking, spec_factory, sink):
    marking.script("model-moderator", Script(status=500))
    marking.script("model-breaker", Script(status=500))
    finished = await run(spec_factory(3), sink)
    assert finished.status == "failed"
    assert "retry the synthesis" in finished.error
    stored = [e.result for e in sink.of(ContributionFinished) if e.result.kind in {"answer", "debate"}]
    assert len(stored) == 6
    assert all(r.ok for r in stored)


async def test_under_strict_a_failure_stops_the_other_calls_at_once(fake_provider, spec_factory, sink):
    fake_provider.script("model-alpha", Script(status=401))
    fake_provider.script("model-beta", Script(first_token_delay=FOREVER))  # would hang the run
    fake_provider.script("model-gamma", marked(2))
    finished = await run(spec_factory(3, failure_policy="strict"), sink)
    assert finished.status == "failed"
    assert "Panelist A" in finished.error
    beta = [e.result for e in sink.of(ContributionFinished) if e.result.seat == "p2"]
    assert len(beta) == 1
    assert beta[0].status == "cancelled"  # it was stopped, it did not fail
    assert beta[0].error == "stopped when Panelist A failed: under the strict policy the run stops"
    assert sink.of(RunFinished) == [finished]
