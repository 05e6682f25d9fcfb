"""Same answer, other words; opposite answers, shared words: the agreement corpus.

tests/corpus/agreement/ holds answers worded as real models word them, with the relation a
person would give: the same answer (in other words, with a reservation, in another language, in
other units) or a different one (an opposite in shared words, another number, another choice).
Each pair runs through the guards alone, and through the judge's whole plumbing: the judge's
prompt, its structured request over a real wire to the fake provider server, its reply read back,
the guards applied, the agreement every reader takes.
"""

import json
from dataclasses import replace
from pathlib import Path

import pytest

from debates.engine import guards, sameness
from debates.engine.agreement import JUDGE, WORDING
from debates.engine.context import Run
from debates.engine.events import ContributionResult
from debates.engine.ledger import Ledger
from debates.engine.protocols import Step
from debates.engine.vocabulary import Outcome, StepKind
from tests.engine.conftest import make_seat
from tests.fakes import judge
from tests.fakes.provider_server import Script

CORPUS = Path(__file__).resolve().parents[1] / "corpus" / "agreement"
PAIRS = [json.loads(line) for line in (CORPUS / "pairs.jsonl").read_text(encoding="utf-8").splitlines() if line]
GROUPS = json.loads((CORPUS / "groups.json").read_text(encoding="utf-8"))
WIRES = ("openai", "anthropic", "gemini")
SAME = [p for p in PAIRS if p["same"]]
APART = [p for p in PAIRS if not p["same"] and p.get("guard")]
CHOICES = [p for p in PAIRS if not p["same"] and p.get("guard") is False]


def named(pairs: list[dict]) -> list:
    return [pytest.param(p, id=f"{p['a']} | {p['b']}"[:90]) for p in pairs]


def test_the_corpus_holds_every_shape_asked_for():
    kinds = {p["kind"] for p in PAIRS}
    assert kinds == {"paraphrase", "position", "reservation", "opposite", "choice", "numbers", "language"}
    assert len(PAIRS) + len(GROUPS) >= 150
    assert any(not voice["answer"] for case in GROUPS for voice in case["voices"].values())  # no ANSWER line


# --- the guards alone ------------------------------------------------------------------------------


@pytest.mark.parametrize("pair", named(SAME))
def test_no_guard_keeps_apart_the_same_answer_in_other_words(pair):
    assert guards.conflict(pair["a"], pair["b"]) == ""
    assert guards.conflict(pair["b"], pair["a"]) == ""


@pytest.mark.parametrize("pair", named(APART))
def test_a_guard_keeps_apart_opposite_answers_in_shared_words(pair):
    assert guards.conflict(pair["a"], pair["b"])
    assert guards.conflict(pair["b"], pair["a"])


@pytest.mark.parametrize("pair", named(CHOICES))
def test_another_choice_in_other_words_is_left_to_the_judge(pair):
    assert guards.conflict(pair["a"], pair["b"]) == ""


@pytest.mark.parametrize("pair", named([p for p in PAIRS if not p["same"]]))
def test_no_opposite_nor_other_choice_is_one_answer_by_its_wording(pair):
    assert not sameness.relation(pair["a"], pair["b"]).same
    assert not sameness.relation(pair["b"], pair["a"]).same


@pytest.mark.parametrize("pair", named(SAME))
def test_nothing_is_noticed_between_two_wordings_of_one_position(pair):
    """A note on a unanimous panel reads as a doubt; the agreeing pairs of the corpus raise none."""
    assert guards.noticed(pair["a"], pair["b"]) == ""


# --- through the judge's plumbing, over every wire ----------------------------------------------


@pytest.fixture
def seeded(fake_provider, spec_factory, sink):
    """A run whose blind round holds the given answers, ready for the judge's call on ``wire``."""

    def build(voices: dict[str, tuple[str, str]], wire: str = "openai") -> tuple[Run, Step]:
        spec = spec_factory(len(voices))
        seat = make_seat("judge", "Judge", "model-judge", "omega", fake_provider.base_url(wire), wire)
        run = Run(replace(spec, judge=seat), sink, {}, None)
        step = next(s for s in run.steps if s.kind == StepKind.ANSWER)
        results = {}
        for seat_, (label, (answer, text)) in zip(spec.seats, voices.items(), strict=True):
            line = f"\n\nANSWER: {answer}" if answer else ""
            record = {"answer": answer} if answer else {}
            results[seat_.key] = ContributionResult(
                step.index, seat_.key, label, StepKind.ANSWER, Outcome.DONE, text=text + line, ledger=record
            )
        run.results[step.index] = results
        return run, step

    return build


def pair_voices(pair: dict) -> dict[str, tuple[str, str]]:
    return {"Panelist A": (pair["a"], "Reasons."), "Panelist B": (pair["b"], "Other reasons.")}


def labels_of(agreement) -> list[list[str]]:
    return sorted(sorted(group.labels) for group in agreement.groups)


@pytest.mark.parametrize("index", range(len(PAIRS)))
async def test_a_judge_that_reads_meaning_gives_the_relation_a_person_gives(seeded, fake_provider, index):
    pair = PAIRS[index]
    run, step = seeded(pair_voices(pair), WIRES[index % len(WIRES)])
    together = [["Panelist A", "Panelist B"]] if pair["same"] else [["Panelist A"], ["Panelist B"]]
    reserved = {"Panelist B": "a condition"} if pair.get("reservation") else {}
    fake_provider.script_judge(judge.partition(together, reserved))
    agreement = await run.agree(step)
    same_words = sameness.relation(pair["a"], pair["b"]).same  # then no judge is asked: wording suffices
    assert bool(run.judgements) == (not same_words)
    assert agreement.method == (WORDING if same_words else JUDGE), agreement.notes
    assert labels_of(agreement) == sorted(together)
    assert (agreement.reservation("Panelist B") != "") == bool(reserved and not same_words)
    if run.judgements:  # asked in the wire's own structured way
        (request,) = fake_provider.judge_requests
        assert request.schema is not None
        assert "groups" in json.dumps(request.schema)


@pytest.mark.parametrize("index", [PAIRS.index(p) for p in APART])
async def test_a_judge_that_merges_everything_is_refused_where_a_guard_holds(seeded, fake_provider, index):
    pair = PAIRS[index]
    run, step = seeded(pair_voices(pair), WIRES[index % len(WIRES)])
    fake_provider.script_judge(judge.partition([["Panelist A", "Panelist B"]]))
    agreement = await run.agree(step)
    assert labels_of(agreement) == [["Panelist A"], ["Panelist B"]]
    assert any("refused" in note and guards.conflict(pair["a"], pair["b"]) in note for note in agreement.notes)
    # Issue 41: the voice split out kept the other group's answer as its own ("yes" on the "no" voice).
    assert agreement.group_of("Panelist B").answer == pair["b"]


@pytest.mark.parametrize("index", [PAIRS.index(p) for p in CHOICES])
async def test_a_judge_that_merges_another_choice_is_not_overruled_but_noticed(seeded, fake_provider, index):
    pair = PAIRS[index]
    run, step = seeded(pair_voices(pair), WIRES[index % len(WIRES)])
    fake_provider.script_judge(judge.partition([["Panelist A", "Panelist B"]]))
    agreement = await run.agree(step)
    assert labels_of(agreement) == [["Panelist A", "Panelist B"]]  # the judge reads meaning; no guard holds
    assert not any("refused" in note for note in agreement.notes)
    if why := guards.noticed(pair["a"], pair["b"]):
        assert any(why in note and "the grouping stands" in note for note in agreement.notes)


async def test_the_unanimous_monolith_panel_stays_one_group_with_no_note(seeded, fake_provider):
    """Issue 49: "No — keep the monolith", "Stay with the monolith" and "Don't migrate to
    microservices" are one answer; no word list splits them 2–1."""
    voices = {
        "Panelist A": ("No — keep the monolith this year", "Six engineers; the coupling is inside modules."),
        "Panelist B": ("Stay with the monolith this year", "The deploy pipeline is the bottleneck."),
        "Panelist C": ("Don't migrate to microservices this year", "A split multiplies the on-call surface."),
    }
    run, step = seeded(voices)
    fake_provider.script_judge(judge.partition([list(voices)]))
    agreement = await run.agree(step)
    assert agreement.unanimous
    assert agreement.notes == ()


@pytest.mark.parametrize("case", GROUPS, ids=[case["name"] for case in GROUPS])
@pytest.mark.parametrize("wire", WIRES)
async def test_groups_of_voices_are_partitioned_by_meaning_on_every_wire(seeded, fake_provider, case, wire):
    voices = {label: (v["answer"], v["text"]) for label, v in case["voices"].items()}
    run, step = seeded(voices, wire)
    reservations = case.get("reservations", {})
    fake_provider.script_judge(judge.partition(case["groups"], reservations, tuple(case.get("off_topic", ()))))
    agreement = await run.agree(step)
    assert agreement.method == JUDGE
    assert labels_of(agreement) == sorted(sorted(g) for g in case["groups"])
    assert list(agreement.off_topic) == case.get("off_topic", [])
    for label in voices:
        assert agreement.reservation(label) == reservations.get(label, "")
    (request,) = fake_provider.judge_requests
    assert request.wire == wire
    assert request.json_output
    for label, (answer, text) in voices.items():  # every voice read, under its label only
        assert label in request.prompt
        assert f"ANSWER: {answer or '(none given'}" in request.prompt
        assert text[:40] in request.prompt


@pytest.mark.parametrize(
    "reply",
    [
        Script(status=500),
        Script(answer="I think they mostly agree."),
        Script(answer='{"groups": "all of them"}'),
        Script(answer='{"groups": [{"answer": "x", "members": ["Panelist Q"]}]}'),
    ],
    ids=["server error", "prose", "groups not a list", "voices not on the panel"],
)
async def test_a_judge_that_fails_or_cannot_be_read_leaves_the_wording_and_says_so(seeded, fake_provider, reply):
    case = GROUPS[0]
    run, step = seeded({label: (v["answer"], v["text"]) for label, v in case["voices"].items()})
    fake_provider.script_judge(reply)
    agreement = await run.agree(step)
    assert agreement.method == WORDING
    assert any("grouped by wording only" in note for note in agreement.notes)
    assert len(agreement.groups) == 4  # the three paraphrases of "no" are three wordings
    ledger = Ledger(run.ledger(judged=False).entries, agreement=agreement)
    assert ledger.as_dict()["agreement"]["method"] == "wording"
    assert all(s["stance"] == "unknown" for s in ledger.stances().values())  # no answer leads: 1-1-1-1
    assert all(s["why"] == "the panel is split evenly" for s in ledger.stances().values())


async def test_the_paraphrased_panel_reads_as_it_means_stances_and_emerging_answer(seeded, fake_provider):
    case = GROUPS[0]
    run, step = seeded({label: (v["answer"], v["text"]) for label, v in case["voices"].items()})
    fake_provider.script_judge(judge.partition(case["groups"], case["reservations"], answers={"Panelist A": "No"}))
    run.agreements[step.index] = await run.agree(step)
    ledger = run.ledger().as_dict()
    assert ledger["emerging"] == "No"
    stances = {label: s["stance"] for label, s in ledger["stances"].items()}
    assert stances == {
        "Panelist A": "agrees",
        "Panelist B": "agrees",
        "Panelist C": "partly",
        "Panelist D": "disagrees",
    }
    assert "fix CI and add a worker first" in ledger["stances"]["Panelist C"]["why"]
