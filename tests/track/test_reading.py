"""What the track record reads from a finished run: a vote's decided group (by the threshold, the
tie-breaker or a person), a person's decision as an outcome, and claims SymPy's facts contradict."""

import pytest

from debates.grounding import Fact, Grounding
from debates.models import Contradiction, Question, Standing, Status
from debates.track import figures, reading
from tests.track.history import Debate, Voice, store

A, B, C = "Panelist A", "Panelist B", "Panelist C"


def ballots(**decisions: str) -> dict[str, Voice]:
    return {f"Panelist {label}": Voice(decision=d, confidences=(0.8,)) for label, d in decisions.items()}


def groups(**decided: list[str]) -> list[dict]:
    return [{"decision": d, "labels": [f"Panelist {x}" for x in labels]} for d, labels in decided.items()]


def sides(question: Question) -> dict[str, int | None]:
    return {s.panelist.name: s.side for s in Standing.objects.filter(reading__question=question)}


def test_a_vote_sides_by_the_group_decided_by_the_threshold_or_the_tie_breaker(ballot, alice):
    agreed = {"reached": True, "decision": "Yes", "groups": groups(Yes="AB", No="C")}
    reached = store(ballot, Debate(ballots(A="Yes", B="Yes", C="No"), consensus=agreed))
    tie_break = {"decision": "maybe", "confidence": 0.6, "reasoning": "…"}
    tied = {"reached": False, "decision": None, "groups": groups(Yes="A", No="B", Maybe="C"), "tie_breaker": tie_break}
    broken = store(ballot, Debate(ballots(A="Yes", B="No", C="Maybe"), consensus=tied))
    reading.read_pending()
    assert sides(reached) == {"Alpha ballot": 1, "Beta ballot": 1, "Gamma ballot": 0}
    assert sides(broken) == {"Alpha ballot": 0, "Beta ballot": 0, "Gamma ballot": 1}  # case aside: "maybe"
    assert Standing.objects.filter(lone=True).get().panelist.name == "Gamma ballot"  # the one dissent of three


def test_a_persons_decision_on_a_vote_that_needed_review_is_its_outcome_and_is_read_when_made(ballot, staff):
    split = {"reached": False, "decision": None, "groups": groups(No="BC", Yes="A"), "escalation": "human_review"}
    question = store(
        ballot,
        Debate(ballots(A="Yes", B="No", C="No"), status="needs_review", consensus=split),
        verdict="No consensus: a person decides.",
    )
    before = {r.name: r for r in figures.build(staff).records}
    assert before["Alpha ballot"].known == 0  # no option decided: no side yet
    Question.objects.filter(pk=question.pk).update(human_decision="No", status=Status.DONE)  # the admin's action
    found = figures.build(staff)
    after = {r.name: r for r in found.records}
    assert sides(question) == {"Alpha ballot": 0, "Beta ballot": 1, "Gamma ballot": 1}
    assert found.with_outcome == 1
    # The decided option is right: Beta and Gamma (0.8) were right, Alpha's lone dissent (0.8) was wrong.
    assert (after["Alpha ballot"].lone_dissents, after["Alpha ballot"].dissents_right) == (1, 0.0)
    assert after["Beta ballot"].brier == pytest.approx((0.8 - 1) ** 2)
    assert after["Alpha ballot"].brier == pytest.approx(0.8**2)


def test_facts_are_read_back_from_the_grounding_brief():
    brief = Grounding(
        facts=(Fact("arithmetic", "17*23", "391"), Fact("isprime", "isprime(91)", "False")),
        notes=("could not compute `x^x^x`",),
    ).as_brief()
    assert reading.facts_of(brief) == (Fact("arithmetic", "17*23", "391"), Fact("isprime", "isprime(91)", "False"))


def test_a_claim_a_verified_fact_contradicts_counts_against_the_claim_and_its_voice(house, alice):
    brief = Grounding(facts=(Fact("arithmetic", "17*23", "391"), Fact("isprime", "isprime(91)", "False"))).as_brief()
    voices = {
        # In its text: the contradiction carries what Alpha stated overall, its claims' mean (0.9).
        A: Voice(confidences=(0.9,), text="The total is plain: 17*23 = 401, so the budget holds."),
        B: Voice(confidences=(0.7,), text="17*23 = 391, so the budget is short by nine."),
        # In a claim of its ledger: the contradiction carries that claim's own confidence (0.95).
        C: Voice(confidences=(0.6, 0.95), claims=("The margin is thin", "91 is prime")),
    }
    store(house, Debate(voices, grounding=brief), owner=alice)
    found = {r.name: r for r in figures.build(alice).records}
    texts = dict(Contradiction.objects.values_list("contribution__panelist__name", "text"))
    assert "“17*23 = 401” contradicts the computed 17*23 = 391." in texts["Alpha house"]
    assert "but 91 is not prime" in texts["Gamma house"]
    assert Contradiction.objects.get(contribution__panelist__name="Gamma house").claim == "C2"
    assert [found[name].contradicted for name in ("Alpha house", "Beta house", "Gamma house")] == [1, 0, 1]
    # No verdict was judged: each contradicted claim is a calibration point of its own, wrong (0).
    assert (found["Alpha house"].calibration_n, found["Alpha house"].brier) == (1, pytest.approx(0.9**2))
    assert (found["Gamma house"].calibration_n, found["Gamma house"].brier) == (1, pytest.approx(0.95**2))
    calibration = figures.build(alice).calibration
    pooled = pytest.approx((0.9**2 + 0.95**2) / 2)
    assert (calibration.n, calibration.contradicted_claims, calibration.brier) == (2, 2, pooled)
