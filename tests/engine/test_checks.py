"""Numbers checked between rounds, end to end on the fake provider server: SymPy catches a voice's
false computations after its round, the next round's prompt carries the correction, the ledger marks
the claims checked ✓ / ✗, the moderator is told, and a resumed run replays the check."""

import pytest

from debates.engine.checks import said
from debates.engine.events import ContributionFinished, ContributionResult, LedgerUpdated, RoundStarted
from debates.engine.protocols import plan
from debates.engine.reading import closing
from debates.engine.run import run
from debates.engine.vocabulary import Outcome, StepKind
from debates.grounding import SympyGrounder
from debates.grounding.sandbox import Sandbox
from tests.fakes.answers import SYNTHESIS

MODELS = ["model-alpha", "model-beta", "model-gamma"]
WRONG = (
    "A kilobyte is small.\n\nANSWER: Cache the pages\nCLAIMS:\n"
    "1. [fact] 2^10 = 1000, so a 1 KiB page holds 1000 bytes | confidence: 90% | falsified if: the page is larger\n"
    "2. [fact] 12 % of 250 is 40, the share of cold pages | confidence: 80% | falsified if: the logs differ\n"
)
CONVERSION = (
    "Pages are short-lived: 1 day = 84,600 seconds of retention.\n\nANSWER: Cache the pages\nCLAIMS:\n"
    "1. [fact] Reads are most of the load | confidence: 70% | falsified if: writes dominate\n"
)
RIGHT = (
    "Memory is enough.\n\nANSWER: Cache the pages\nCLAIMS:\n"
    "1. [fact] 2^10 = 1024 and 1 KiB = 1024 bytes | confidence: 95% | falsified if: SymPy says otherwise\n"
    "2. [fact] 30 is 12% of 250 | confidence: 90% | falsified if: the arithmetic is wrong\n"
)
ON_ITS_OWN = (
    "Two quick numbers.\n\nANSWER: Cache the pages\nCLAIMS:\n"
    "1. [fact] 2^10 = 1000 | confidence: 90% | falsified if: SymPy computes another power\n"
    "2. [fact] 7 × 8 = 54 | confidence: 80% | falsified if: SymPy computes another product\n"
)
SQUADS = (
    "12 engineers in 2 squads is 12 / 2 = 6 engineers per squad.\n\nANSWER: Cache the pages\nCLAIMS:\n"
    "1. [fact] Each squad gets 6 engineers | confidence: 90% | falsified if: the headcount is not 12\n"
    "2. [inference] The cluster needs 54 nodes | confidence: 70% | falsified if: a node holds more than 8 shards\n"
    "CALC:\n- 1 | 12 / 2 = 6\n- 2 | 7 * 8 = 54\n"
)
RESTATES_A2 = (
    "## Consensus\nCache the pages: 12 % of 250 is 40 cold pages (A2).\n\n## Disagreements\nNone.\n\n"
    "## Verdict\nCache the pages, as A2 shows.\n\nVERDICT: Cache the pages.\nCONFIDENCE: 0.8\n"
)


def voice(answer: str, later: str = "I keep my answer.\n\nCHANGE: none | nothing new\nANSWER: Cache the pages"):
    return lambda r: answer if "on your own" in r.prompt else later


@pytest.fixture
async def grounder():
    """The grounder a run gets, on a child of this test's own (a run shares its loop's)."""
    sandbox = Sandbox()
    found = SympyGrounder(sandbox)
    found.warm()
    yield found
    await sandbox.close()


@pytest.fixture
def panel(fake_provider, spec_factory):
    def build(answers: list[str], synthesis: str = SYNTHESIS, **settings):
        for model, answer in zip(MODELS, answers, strict=True):
            fake_provider.script(model, voice(answer))
        fake_provider.script("model-moderator", synthesis)
        return spec_factory(3, models=MODELS, checks=True, question="How much memory do the pages need?", **settings)

    return build


def checks_of(sink) -> list[dict]:
    return [e.ledger["checks"] for e in sink.of(LedgerUpdated)][-1]


def test_a_run_that_asked_for_checks_plans_one_after_each_round_and_others_keep_their_indices(spec_factory):
    with_checks = [s.kind for s in plan(spec_factory(3, checks=True))]
    assert with_checks == [
        StepKind.GROUNDING,
        StepKind.ANSWER,
        StepKind.CHECK,
        StepKind.DEBATE,
        StepKind.CHECK,
        StepKind.SYNTHESIS,
    ]
    assert StepKind.CHECK not in [s.kind for s in plan(spec_factory(3))]


async def test_false_computations_are_caught_and_the_next_round_reads_the_correction(
    panel, fake_provider, sink, grounder
):
    finished = await run(panel([WRONG, CONVERSION, RIGHT]), sink, grounder=grounder)
    assert finished.status == "done"
    checked = {c["quote"]: c for c in checks_of(sink)}
    assert checked["2^10 = 1000"]["holds"] is False
    assert checked["2^10 = 1000"]["computation"] == "2^10 = 1024, not 1000"
    assert (checked["2^10 = 1000"]["label"], checked["2^10 = 1000"]["claim"]) == ("Panelist A", "A1")
    assert checked["12 % of 250 is 40"]["computation"] == "12% of 250 = 30, not 40"
    assert checked["1 day = 84,600 seconds"]["holds"] is False
    assert checked["1 day = 84,600 seconds"]["claim"] == ""  # found in the prose, outside the block
    assert checked["1 day = 84,600 seconds"]["computation"] == "1 day = 86400 seconds, not 84,600 seconds"
    # Never a correct claim flagged.
    assert all(c["holds"] for c in checked.values() if c["label"] == "Panelist C")
    assert {q for q, c in checked.items() if c["label"] == "Panelist C"} >= {"2^10 = 1024", "30 is 12% of 250"}
    for model in MODELS:
        debate = next(r.prompt for r in fake_provider.requests_for(model) if "Now debate" in r.prompt)
        assert "Numbers checked by the program between rounds" in debate
        assert "“2^10 = 1000” does not hold: 2^10 = 1024, not 1000." in debate
        assert "“12 % of 250 is 40” does not hold: 12% of 250 = 30, not 40." in debate
        assert "does not hold: 1 day = 86400 seconds, not 84,600 seconds." in debate
    blind = [r.prompt for model in MODELS for r in fake_provider.requests_for(model) if "on your own" in r.prompt]
    assert not any("Numbers checked" in prompt for prompt in blind)


async def test_the_checks_are_a_round_of_their_own_stored_and_the_ledger_marks_them(panel, sink, grounder):
    await run(panel([WRONG, CONVERSION, RIGHT]), sink, grounder=grounder)
    rounds = [e for e in sink.of(RoundStarted) if e.kind == StepKind.CHECK]
    assert [(r.index, r.labels) for r in rounds] == [(2, ("SymPy",))]  # the debate round stated no new number
    (stored,) = [e.result for e in sink.of(ContributionFinished) if e.result.kind == StepKind.CHECK]
    assert stored.seat == "checks"
    assert not stored.is_call
    assert stored.text.startswith("- ✗ ")  # what does not hold first
    assert stored.ledger["checks"] == checks_of(sink)


async def test_the_moderator_is_told_and_a_verdict_resting_on_a_refuted_claim_is_flagged(
    panel, fake_provider, sink, grounder
):
    await run(panel([WRONG, CONVERSION, RIGHT], synthesis=RESTATES_A2), sink, grounder=grounder)
    moderator = fake_provider.requests_for("model-moderator")[0].prompt
    assert "A claim a check refuted cannot stand in your verdict" in moderator
    assert "✗ Panelist A, A2: “12 % of 250 is 40” does not hold: 12% of 250 = 30, not 40." in moderator
    (synthesis,) = [e.result for e in sink.of(ContributionFinished) if e.result.kind == StepKind.SYNTHESIS]
    assert any("rests on Panelist A's A2 (“12 % of 250 is 40”)" in flag for flag in synthesis.flags)
    assert not any("A1" in flag for flag in synthesis.flags)


async def test_a_moderator_that_says_why_is_not_flagged(panel, sink, grounder):
    reasoned = RESTATES_A2.replace("(A2).", "(A2), although the check refuted that figure: 30, not 40.").replace(
        "as A2 shows", "as the corrected A2 shows"
    )
    await run(panel([WRONG, CONVERSION, RIGHT], synthesis=reasoned), sink, grounder=grounder)
    (synthesis,) = [e.result for e in sink.of(ContributionFinished) if e.result.kind == StepKind.SYNTHESIS]
    assert synthesis.flags == ()


async def test_a_resumed_run_replays_the_stored_check_without_computing_again(panel, sink, grounder):
    spec = panel([WRONG, CONVERSION, RIGHT])
    await run(spec, sink, grounder=grounder)
    prior = {
        (e.result.round, e.result.seat): e.result
        for e in sink.of(ContributionFinished)
        if e.result.kind in (StepKind.ANSWER, StepKind.CHECK)
    }

    class Counting(SympyGrounder):
        asked: list[int] = []

        async def check(self, said):
            self.asked += [s.round for s in said]
            return await super().check(said)

    again, counting = type(sink)(), Counting(grounder.sandbox)
    await run(spec, again, prior=prior, grounder=counting)
    assert 1 not in counting.asked  # the blind round's check came from storage
    assert checks_of(again)[: len(checks_of(sink))] == checks_of(sink)


async def test_without_a_grounder_the_checks_do_not_run(panel, fake_provider, sink):
    finished = await run(panel([WRONG, CONVERSION, RIGHT]), sink)
    assert finished.status == "done"
    assert not [e for e in sink.of(RoundStarted) if e.kind == StepKind.CHECK]
    debate = next(r.prompt for r in fake_provider.requests_for("model-alpha") if "Now debate" in r.prompt)
    assert "Numbers checked" not in debate


async def test_an_adversarial_critique_and_the_final_positions_read_the_checks(panel, fake_provider, sink, grounder):
    spec = panel([WRONG, CONVERSION, RIGHT], protocol="adversarial", force_panel=True, rounds=2)
    assert [s.kind for s in plan(spec)].count(StepKind.CHECK) == 3  # after blind, critique, final
    await run(spec, sink, grounder=grounder)
    for phase in ("Cross-critique", "State your final position"):
        prompts = [r.prompt for m in MODELS for r in fake_provider.requests_for(m) if phase in r.prompt]
        assert prompts, phase
        assert all("“2^10 = 1000” does not hold: 2^10 = 1024, not 1000." in p for p in prompts)


async def test_a_computation_given_as_a_claim_on_its_own_reaches_the_ledger_and_is_checked(panel, sink, grounder):
    await run(panel([ON_ITS_OWN, CONVERSION, RIGHT]), sink, grounder=grounder)
    ledger = [e.ledger for e in sink.of(LedgerUpdated)][-1]
    assert [c["text"] for c in ledger["claims"] if c["author"] == "Panelist A"] == ["2^10 = 1000", "7 × 8 = 54"]
    checked = {c["claim"]: (c["holds"], c["computation"]) for c in checks_of(sink) if c["label"] == "Panelist A"}
    assert checked == {"A1": (False, "2^10 = 1024, not 1000"), "A2": (False, "7 * 8 = 56, not 54")}


async def test_calc_lines_are_checked_tied_to_their_claims_and_a_sentence_is_never_split(
    panel, fake_provider, sink, grounder
):
    await run(panel([SQUADS, CONVERSION, RIGHT]), sink, grounder=grounder)
    by_a = [(c["claim"], c["quote"], c["holds"]) for c in checks_of(sink) if c["label"] == "Panelist A"]
    assert by_a == [("A1", "12 / 2 = 6", True), ("A2", "7 * 8 = 54", False)]  # the prose's 12 / 2 = 6 is A1's
    for model in [*MODELS, "model-moderator"]:
        later = [r.prompt for r in fake_provider.requests_for(model) if "Numbers checked" in r.prompt]
        assert later, model
        assert all("✗ Panelist A, A2: “7 * 8 = 54” does not hold: 7 * 8 = 56, not 54." in p for p in later)
        assert not any("squads" in line and "does not hold" in line for p in later for line in p.splitlines())


async def test_what_the_time_left_unchecked_is_said_and_never_put_to_a_voice(panel, fake_provider, sink):
    sandbox = Sandbox()
    out_of_time = SympyGrounder(sandbox, budget_s=0)
    try:
        finished = await run(panel([WRONG, CONVERSION, RIGHT]), sink, grounder=out_of_time)
    finally:
        await sandbox.close()
    assert finished.status == "done"
    found = checks_of(sink)
    assert found
    assert {(c["holds"], c["computation"]) for c in found} == {
        (None, "not checked: the round's 0 s for checks ran out first")
    }
    (stored,) = [e.result for e in sink.of(ContributionFinished) if e.result.kind == StepKind.CHECK]
    assert "- – Panelist A, A1: “2^10 = 1000” was not checked: the round's 0 s for checks ran out first." in stored.text
    prompts = [r.prompt for m in [*MODELS, "model-moderator"] for r in fake_provider.requests_for(m)]
    assert not any("Numbers checked" in p or "not checked" in p for p in prompts)


def test_a_calc_line_is_tied_only_to_a_claim_of_its_own_voice_that_exists():
    text = SQUADS.replace("- 2 | 7 * 8 = 54", "- 2 | 7 * 8 = 54\n- 5 | 2 + 2 = 4\n- B1 | 3 * 3 = 9")
    record = closing.read("answer", text, "Panelist A")
    result = ContributionResult(1, "p1", "Panelist A", StepKind.ANSWER, Outcome.DONE, text=text, ledger=record)
    lines = [(s.claim, s.text) for s in said([result]) if s.calc]
    assert lines == [("A1", "12 / 2 = 6"), ("A2", "7 * 8 = 54"), ("", "2 + 2 = 4"), ("", "3 * 3 = 9")]
