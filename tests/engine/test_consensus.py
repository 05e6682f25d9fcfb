"""The vote protocol's maths, on exact fractions."""

import contextlib
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from debates.engine.consensus import THRESHOLDS, Ballot, VoteParseError, evaluate, normalise, parse_ballot


def ballots(*decisions: str) -> list[Ballot]:
    return [Ballot(f"Panelist {chr(65 + i)}", d, 0.8, "because") for i, d in enumerate(decisions)]


def test_thresholds_are_exact_fractions_not_rounded_floats():
    assert THRESHOLDS["low"] == Fraction(2, 3)
    assert THRESHOLDS["medium"] == Fraction(3, 4)
    assert THRESHOLDS["high"] == Fraction(4, 5)


def test_two_of_three_reaches_low_but_not_medium():
    assert evaluate(ballots("approve", "approve", "reject"), "low", 85).reached
    assert not evaluate(ballots("approve", "approve", "reject"), "medium", 85).reached


def test_two_thirds_is_not_rounded_down_to_sixty_six_percent():
    result = evaluate(ballots("yes", "yes", "no"), "low", 85)
    assert result.agreement == Fraction(2, 3)
    assert result.reached


def test_three_of_four_reaches_medium_and_four_of_five_reaches_high():
    assert evaluate(ballots("a", "a", "a", "b"), "medium", 85).reached
    assert evaluate(ballots("x", "x", "x", "x", "y"), "high", 85).reached
    assert not evaluate(ballots("x", "x", "x", "y", "y"), "high", 85).reached


def test_similar_decisions_share_a_group_after_normalisation():
    result = evaluate(ballots("Approve.", "approve", "APPROVE the change"), "low", 60)
    assert result.groups[0][1] == ("Panelist A", "Panelist B", "Panelist C") or len(result.groups[0][1]) >= 2


def test_result_names_the_dissenters():
    result = evaluate(ballots("spam", "spam", "not spam"), "low", 85)
    assert result.decision == "spam"
    assert result.dissenters == ("Panelist C",)


def test_no_consensus_escalates_to_human_review_when_high_and_tie_breaker_otherwise():
    assert evaluate(ballots("a", "b", "c"), "high", 85).escalation == "human_review"
    assert evaluate(ballots("a", "b", "c"), "medium", 85).escalation == "tie_breaker"


def test_a_single_valid_vote_is_not_a_consensus():
    result = evaluate(ballots("yes"), "low", 85)
    assert not result.reached
    assert result.notes


def test_a_tie_between_two_groups_is_never_a_consensus():
    assert not evaluate(ballots("a", "a", "b", "b"), "low", 85).reached


@pytest.mark.parametrize(
    "text",
    [
        '{"decision": "approve", "confidence": 0.9, "reasoning": "ok"}',
        'Sure!\n```json\n{"decision": "approve", "confidence": 0.9, "reasoning": "ok"}\n```\nHope this helps.',
        'My vote: {"decision": "approve", "confidence": "90%", "reasoning": "ok"} and that is final.',
        '{"decision": "approve", "confidence": 90, "reasoning": "ok"}',
    ],
)
def test_votes_are_parsed_from_fences_and_trailing_prose(text):
    ballot = parse_ballot("Panelist A", text)
    assert ballot.decision == "approve"
    assert ballot.confidence == pytest.approx(0.9)


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("I approve.", "no JSON object"),
        ('{"decision": "", "confidence": 0.5}', "empty"),
        ('{"decision": "yes", "confidence": "very"}', "not a number"),
        ('{"decision": "yes", "confidence": 1.5e3}', "outside"),
        ('{"decision": "yes"}', "missing"),
        ('{"verdict": "yes", "confidence": 0.5}', "no JSON object"),
    ],
)
def test_unparseable_votes_say_why(text, why):
    with pytest.raises(VoteParseError, match=why):
        parse_ballot("Panelist A", text)


@given(st.text())
def test_parsing_never_crashes_on_junk(text):
    with contextlib.suppress(VoteParseError):
        parse_ballot("Panelist A", text)


@given(st.lists(st.sampled_from(["yes", "no", "maybe", "Yes.", "NO"]), min_size=1, max_size=9),
       st.sampled_from(["low", "medium", "high"]))  # fmt: skip
def test_consensus_is_reached_exactly_when_the_largest_share_meets_the_threshold(decisions, criticality):
    result = evaluate(ballots(*decisions), criticality, 85)
    sizes = sorted((len(labels) for _, labels in result.groups), reverse=True)
    share = Fraction(sizes[0], len(decisions))
    unique_top = len(sizes) == 1 or sizes[1] < sizes[0]
    assert result.reached == (len(decisions) >= 2 and share >= THRESHOLDS[criticality] and unique_top)
    assert sum(sizes) == len(decisions)


def test_normalise_drops_case_punctuation_and_articles():
    assert normalise("  The  Answer, is: YES! ") == "answer is yes"


@pytest.mark.parametrize(("a", "b"), [("Option A", "option B"), ("class 1", "class 2"), ("plan 10", "plan 11")])
def test_decisions_differing_in_a_number_or_a_letter_are_never_grouped(a, b):
    assert len(evaluate(ballots(a, b, a), "low", 85).groups) == 2


def test_spelling_variants_of_one_decision_are_grouped():
    assert len(evaluate(ballots("approved", "Approve", "approve."), "low", 85).groups) == 1
