"""The adversarial protocol: triage, blind round, gate, critique, final positions, synthesis."""

import json

from debates.engine.events import ContributionFinished, PanelChanged, RunFinished
from debates.engine.run import run
from tests.fakes.answers import ADVERSARIAL_SYNTHESIS
from tests.fakes.provider_server import Script

HIGH_STAKES = json.dumps({"stakes": "high", "panel": True, "reason": "an outage costs money", "direct_answer": ""})
LOW_STAKES = json.dumps({"stakes": "low", "panel": False, "reason": "trivia", "direct_answer": "Paris."})


def voice(model: str):
    def answer(request) -> str:
        prompt = request.prompt
        if "on your own" in prompt:
            return f"BLIND-{model}: replicas, because reads dominate. Confidence 70%; fails if writes triple."
        if "Cross-critique" in prompt:
            return f'CRITIQUE-{model}: the claim "replicas, because reads dominate" is wrong for bursts.'
        if "final position" in prompt:
            return f"FINAL-{model}: I defend replicas because bursts are rare. Confidence 60%; wrong if p99 > 2s."
        return "unexpected"

    return answer


def script(server, triage: str = HIGH_STAKES) -> None:
    for model in ("model-alpha", "model-beta", "model-gamma"):
        server.script(model, Script(answer=voice(model)))
    server.script(
        "model-moderator", lambda r: triage if "facilitator of an expert panel" in r.prompt else ADVERSARIAL_SYNTHESIS
    )


async def test_an_adversarial_run_has_triage_blind_critique_final_and_synthesis(fake_provider, spec_factory, sink):
    script(fake_provider)
    finished = await run(spec_factory(2, protocol="adversarial"), sink)
    assert finished.status == "done"
    assert [heading for heading, _ in finished.sections] == ["Agreement", "Conflicts", "Conclusion"]
    kinds = [e.result.kind for e in sink.of(ContributionFinished)]
    assert kinds == [
        *["triage", "answer", "answer", "agreement", "critique", "critique"],
        *["final", "final", "agreement", "synthesis"],
    ]  # the judge groups the blind answers and the final positions; a critique carries no answer
    assert len(fake_provider.requests) == 1 + 2 * 3 + 2 + 1


async def test_a_low_stakes_question_gets_a_direct_answer_and_the_offer_of_a_panel(fake_provider, spec_factory, sink):
    script(fake_provider, triage=LOW_STAKES)
    finished = await run(spec_factory(2, protocol="adversarial", question="What is the capital of France?"), sink)
    assert finished.status == "answered"
    assert finished.verdict == "Paris."
    assert "always run the full panel" in finished.synthesis
    assert len(fake_provider.requests) == 1


async def test_always_run_the_panel_asks_the_facilitator_only_for_the_brief(fake_provider, spec_factory, sink):
    script(fake_provider, triage=LOW_STAKES)
    finished = await run(spec_factory(2, protocol="adversarial", force_panel=True), sink)
    assert finished.status == "done"
    (triage,) = [r for r in fake_provider.requests if "facilitator of an expert panel" in r.prompt]
    assert "The panel will run: the asker asked for it" in triage.prompt
    assert "Decide whether this question deserves the panel" not in triage.prompt


async def test_critique_prompts_hold_the_others_answers_but_not_ones_own(fake_provider, spec_factory, sink):
    script(fake_provider)
    await run(spec_factory(3, protocol="adversarial"), sink)
    for model in ("model-alpha", "model-beta", "model-gamma"):
        critique = next(r for r in fake_provider.requests_for(model) if "Cross-critique" in r.prompt)
        assert critique.prompt.count("BLIND-") == 2  # the two others; names are scrubbed, so count
        assert "at least one central claim" in critique.prompt


async def test_final_positions_see_the_critiques_received(fake_provider, spec_factory, sink):
    script(fake_provider)
    await run(spec_factory(2, protocol="adversarial"), sink)
    final = next(r for r in fake_provider.requests_for("model-alpha") if "final position" in r.prompt)
    assert "CRITIQUE-" in final.prompt  # the critique's author's name itself is scrubbed
    assert "BLIND-" in final.prompt
    assert final.prompt.index("BLIND-") < final.prompt.index("CRITIQUE-")


async def test_merged_rounds_make_one_call_per_voice_after_the_blind_round(fake_provider, spec_factory, sink):
    for model in ("model-alpha", "model-beta"):
        fake_provider.script(model, f"{model} answer: replicas because reads dominate; 'x' is wrong.")
    fake_provider.script(
        "model-moderator", lambda r: HIGH_STAKES if "facilitator of" in r.prompt else ADVERSARIAL_SYNTHESIS
    )
    finished = await run(spec_factory(2, protocol="adversarial", merge_critique=True), sink)
    assert finished.status == "done"
    assert [e.result.kind for e in sink.of(ContributionFinished)].count("critique_final") == 2


async def test_a_reversal_without_reasons_is_flagged_as_sycophancy(fake_provider, spec_factory, sink):
    script(fake_provider)
    fake_provider.script(
        "model-beta",
        Script(
            answer=lambda r: (
                "I concede. I now agree with Panelist A entirely."
                if "final position" in r.prompt
                else voice("model-beta")(r)
            )
        ),
    )
    await run(spec_factory(2, protocol="adversarial"), sink)
    final = next(
        e.result for e in sink.of(ContributionFinished) if e.result.kind == "final" and "concede" in e.result.text
    )
    assert any("sycophancy" in flag for flag in final.flags)


async def test_the_facilitator_is_told_to_label_its_own_opinions(fake_provider, spec_factory, sink):
    script(fake_provider)
    await run(spec_factory(2, protocol="adversarial"), sink)
    synthesis = fake_provider.requests_for("model-moderator")[-1]
    assert "Facilitator's opinion:" in synthesis.prompt
    assert sink.of(RunFinished)[0].evidence_strength == "strong"


BRIEFED = json.dumps(
    {
        "stakes": "high",
        "panel": True,
        "reason": "an outage costs money",
        "direct_answer": "",
        "brief": "Decide between read replicas and sharding for a read-heavy reporting load (90% reads, "
        "2 TB, 15%/yr growth). Constraint: no application rewrite. Wanted: a decision and its trigger to revisit.",
    }
)


async def test_the_facilitator_writes_a_brief_that_every_voice_reads_beside_the_askers_words(
    fake_provider, spec_factory, sink
):
    script(fake_provider, triage=BRIEFED)
    finished = await run(spec_factory(2, protocol="adversarial"), sink)
    assert finished.status == "done"
    report = sink.of(PanelChanged)[-1].panel_run
    assert report["brief"].startswith("Decide between read replicas and sharding")
    blind = [r for r in fake_provider.requests if "on your own" in r.prompt]
    assert len(blind) == 2
    for request in blind:
        assert "Read replicas or sharding" in request.prompt or "Should we add read replicas" in request.prompt
        assert "The facilitator's brief" in request.prompt
        assert "no application rewrite" in request.prompt
        assert "the asker's words win" in request.prompt


async def test_a_triage_after_a_think_block_is_read(fake_provider, spec_factory, sink):
    thinking = '<think>The asker says low stakes; {"panel": true} is my draft.</think>\n' + LOW_STAKES
    script(fake_provider, triage=thinking)
    finished = await run(spec_factory(2, protocol="adversarial", question="What is the capital of France?"), sink)
    assert (finished.status, finished.verdict) == ("answered", "Paris.")
