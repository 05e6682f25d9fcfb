"""The vote protocol's maths, on exact fractions."""

import contextlib
import re
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from debates.engine.consensus import (
    THRESHOLDS,
    Ballot,
    VoteParseError,
    evaluate,
    match_option,
    normalise,
    options_block,
    parse_ballot,
    read_confidence,
    relation,
)
from debates.engine.prompts import PROMPTS_DIR, render


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


def test_normalise_drops_case_punctuation_articles_and_leading_verbs_of_choice():
    assert normalise("  The  Answer, is: YES! ") == "yes"
    assert normalise("**I'd go with** the  PostgreSQL, database!") == "postgresql database"
    assert normalise("Don't use C++") == "do not use c++"


@pytest.mark.parametrize(("a", "b"), [("Option A", "option B"), ("class 1", "class 2"), ("plan 10", "plan 11")])
def test_decisions_differing_in_a_number_or_a_letter_are_never_grouped(a, b):
    assert len(evaluate(ballots(a, b, a), "low", 85).groups) == 2


def test_spelling_variants_of_one_decision_are_grouped():
    assert len(evaluate(ballots("approved", "Approve", "approve."), "low", 85).groups) == 1


# --- what real models send -------------------------------------------------------------------

CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "votes"
# file name → (decision, confidence) or the words of the error
EXPECTED: dict[str, tuple[str, float | None] | str] = {
    "plain_json.txt": ("Approve", 0.9),
    "fenced_json_with_prose_around.txt": ("Use PostgreSQL", 0.82),
    "single_quoted_json.txt": ("reject", 0.7),
    "trailing_commas.txt": ("defer", 0.6),
    "line_comments.txt": ("shard the database", 0.75),
    "block_comments.txt": ("add read replicas", 0.8),
    "unquoted_keys.txt": ("approve", 0.65),
    "capitalised_keys.txt": ("Approve", 0.85),
    "think_block_with_draft_json.txt": ("approve", 0.88),
    "thinking_tag_then_fence.txt": ("PostgreSQL", 0.9),
    "think_close_tag_only.txt": ("approve", 0.7),
    "think_block_cut_off.txt": "no JSON object",
    "python_literals.txt": ("Yes", 0.75),
    "confidence_percentage_number.txt": ("approve", 0.85),
    "confidence_out_of_ten.txt": ("approve", 0.7),
    "confidence_slash_ten.txt": ("reject", 0.8),
    "confidence_word_high.txt": ("approve", 0.8),
    "confidence_word_moderate.txt": ("defer", 0.5),
    "confidence_word_very_low.txt": ("approve", 0.1),
    "confidence_one_point_five.txt": "ambiguous",
    "confidence_bare_seven.txt": "ambiguous",
    "confidence_over_one_hundred.txt": "outside",
    "confidence_missing.txt": ("approve", None),
    "confidence_null.txt": ("approve", None),
    "italian_prose_json_at_end.txt": ("sharding", 0.8),
    "spanish_prose_json_at_end.txt": ("aprobar", 0.85),
    "two_objects_last_is_final.txt": ("approve", 0.8),
    "nested_vote_object.txt": ("add read replicas", 0.7),
    "refusal_no_json.txt": "no JSON object",
    "markdown_bold_decision.txt": ("PostgreSQL", 0.9),
    "decision_as_list_of_one.txt": ("PostgreSQL", 0.8),
    "decision_as_list_of_several.txt": "several choices",
    "placeholder_echo.txt": "placeholder",
    "empty_decision.txt": "empty",
    "smart_quotes.txt": ("approve", 0.7),
    "multiline_string_in_reasoning.txt": ("approve", 0.6),
    "json_then_commentary_with_braces.txt": ("reject", 0.66),
    "final_decision_key_and_rationale.txt": ("Go with option B", 0.7),
    "bare_fraction_confidence.txt": ("do not migrate yet", 0.7),
    "bare_percentage_confidence.txt": ("keep the monolith", 0.85),
}


def test_every_corpus_sample_has_an_expected_reading():
    assert sorted(p.name for p in CORPUS.glob("*.txt")) == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_real_model_votes_are_read_as_the_voter_meant(name):
    text = (CORPUS / name).read_text(encoding="utf-8")
    expected = EXPECTED[name]
    if isinstance(expected, str):
        with pytest.raises(VoteParseError, match=expected):
            parse_ballot("Panelist A", text)
        return
    ballot = parse_ballot("Panelist A", text)
    assert (ballot.decision, ballot.confidence) == (expected[0], pytest.approx(expected[1]) if expected[1] else None)


def test_json_inside_a_think_block_never_counts_as_the_vote():
    text = (CORPUS / "think_block_with_draft_json.txt").read_text(encoding="utf-8")
    thinking_only = text.split("</think>")[0] + "</think>\nI will not vote."
    with pytest.raises(VoteParseError, match="no JSON object"):
        parse_ballot("Panelist A", thinking_only)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (0.85, 0.85), (0, 0.0), (1, 1.0), ("0.85", 0.85), ("85%", 0.85), ("85 %", 0.85), (85, 0.85),
        ("85", 0.85), (100, 1.0), ("7/10", 0.7), ("7 out of 10", 0.7), ("4/5", 0.8), ("0,8", 0.8),
        ("very high", 0.95), ("High", 0.8), ("medium", 0.5), ("Moderate", 0.5), ("low", 0.3),
        ("very low", 0.1), ("medium-high", 0.7), ("high confidence", 0.8), (None, None), ("", None),
    ],
)  # fmt: skip
def test_confidence_is_read_in_every_usual_shape(value, expected):
    assert read_confidence(value) == (pytest.approx(expected) if expected is not None else None)


@pytest.mark.parametrize(
    ("value", "why"),
    [(1.5, "ambiguous"), (7, "ambiguous"), (10, "ambiguous"), ("1.5", "ambiguous"), (-0.2, "outside"),
     (101, "outside"), ("11/10", "outside"), ("120%", "outside"), ("very", "not a number"), (True, "not a number"),
     (float("nan"), "outside"), (10**400, "outside")],
)  # fmt: skip
def test_a_confidence_that_cannot_be_read_safely_is_refused_not_guessed(value, why):
    with pytest.raises(VoteParseError, match=why):
        read_confidence(value)


def test_one_point_five_is_never_read_as_one_and_a_half_percent():
    with pytest.raises(VoteParseError, match="ambiguous"):
        parse_ballot("Panelist A", '{"decision": "yes", "confidence": 1.5}')


def test_a_vote_without_confidence_still_counts():
    ballot = parse_ballot("Panelist A", '{"decision": "yes", "reasoning": "because"}')
    assert (ballot.decision, ballot.confidence) == ("yes", None)


@given(st.text(alphabet=st.sampled_from(list("{}[]\"':,/*<>think01.e% decision"))))
def test_parsing_never_crashes_on_brace_soup(text):
    with contextlib.suppress(VoteParseError):
        parse_ballot("Panelist A", text)


# --- grouping --------------------------------------------------------------------------------

OPPOSITES = [
    ("approve the migration", "disapprove the migration"),
    ("proceed with the rollout", "do not proceed with the rollout"),
    ("increase the budget", "decrease the budget"),
    ("ship it", "skip it"),
    ("use Redis", "don't use Redis"),
    ("use Redis", "avoid Redis"),
    ("yes", "no"),
    ("accept", "reject"),
    ("enable caching", "disable caching"),
    ("keep the cache", "remove the cache"),
    ("merge the branch", "never merge the branch"),
    ("with the feature flag", "without the feature flag"),
    ("install the agent", "uninstall the agent"),
    ("approved", "not approved"),
    ("vote for the proposal", "vote against the proposal"),
]


@pytest.mark.parametrize(("a", "b"), OPPOSITES)
def test_opposite_decisions_are_never_grouped(a, b):
    result = evaluate(ballots(a, b, a), "low", 85)
    assert [(d, len(labels)) for d, labels in result.groups] == [(a, 2), (b, 1)]
    assert result.dissenters == ("Panelist B",)
    assert result.decision == a


@pytest.mark.parametrize(("a", "b"), OPPOSITES)
def test_the_minority_decision_never_becomes_the_verdict(a, b):
    result = evaluate(ballots(b, a, a), "low", 85)
    assert result.decision == a
    assert result.agreement == Fraction(2, 3)


def test_opposites_that_look_alike_are_named_in_the_notes():
    result = evaluate(ballots("approve the migration", "disapprove the migration", "approve the migration"), "low", 85)
    assert any("disapprove the migration" in note and "kept apart" in note for note in result.notes)


@pytest.mark.parametrize(
    "decisions",
    [
        ("Use PostgreSQL", "PostgreSQL", "postgres", "Go with PostgreSQL.", "**PostgreSQL**"),
        ("I recommend Redis", "Redis", "redis", "We should use Redis", "I'd go with Redis"),
        ("approve", "Approved", "approve."),
        ("Option B", "option b", "B"),
        ("organise by team", "organize by team"),
        ("Let's adopt Kubernetes", "kubernetes", "Choose Kubernetes!"),
    ],
)
def test_ordinary_variants_of_one_decision_share_a_group(decisions):
    result = evaluate(ballots(*decisions), "high", 85)
    assert len(result.groups) == 1
    assert result.reached


def test_the_decision_shown_is_the_groups_most_common_form_as_written():
    result = evaluate(ballots("postgres", "Use PostgreSQL", "PostgreSQL", "PostgreSQL"), "low", 85)
    assert result.decision == "PostgreSQL"


def test_equal_counts_of_forms_are_broken_by_the_text_not_the_label():
    first = evaluate(ballots("Use PostgreSQL", "PostgreSQL"), "low", 85)
    second = evaluate(ballots("PostgreSQL", "Use PostgreSQL"), "low", 85)
    assert first.decision == second.decision == "PostgreSQL"


def test_an_unsure_pair_is_not_counted_as_agreement_and_says_why():
    result = evaluate(ballots("PostgreSQL", "PostgreSQL with PgBouncer", "PostgreSQL"), "medium", 85)
    assert [len(labels) for _, labels in result.groups] == [2, 1]
    assert not result.reached
    assert result.escalation == "tie_breaker"
    assert any("PostgreSQL with PgBouncer" in note and "pgbouncer" in note for note in result.notes)


POOL = [
    "approve", "Approve.", "approved", "disapprove", "do not approve", "reject", "postgres", "PostgreSQL",
    "Use PostgreSQL", "postgresql 16", "ship it", "skip it", "shop it", "option a", "option b", "yes", "no",
    "increase the budget", "decrease the budget", "increase budget", "organise", "organize", "organised",
]  # fmt: skip


@given(st.lists(st.sampled_from(POOL), min_size=1, max_size=8).flatmap(
    lambda ds: st.tuples(st.just(ds), st.permutations(range(len(ds))))
), st.sampled_from(["low", "medium", "high"]))  # fmt: skip
def test_who_voted_what_in_which_order_never_changes_the_result(case, criticality):
    decisions, order = case
    plain = evaluate(ballots(*decisions), criticality, 85)
    shuffled = evaluate(ballots(*(decisions[i] for i in order)), criticality, 85)
    assert (plain.reached, plain.decision, plain.agreement, plain.notes) == (
        shuffled.reached, shuffled.decision, shuffled.agreement, shuffled.notes
    )  # fmt: skip
    assert [(d, len(labels)) for d, labels in plain.groups] == [(d, len(labels)) for d, labels in shuffled.groups]


@given(st.lists(st.sampled_from(POOL), min_size=2, max_size=8))
def test_a_group_holds_only_decisions_that_are_pairwise_the_same(decisions):
    result = evaluate(ballots(*decisions), "low", 85)
    by_label = dict(zip((f"Panelist {chr(65 + i)}" for i in range(len(decisions))), decisions, strict=True))
    for _, labels in result.groups:
        for a in labels:
            for b in labels:
                assert relation(by_label[a], by_label[b]).same


WORD = st.from_regex(r"[a-z]{3,9}", fullmatch=True)


@given(st.lists(WORD, min_size=1, max_size=4).map(" ".join), st.sampled_from(["not", "do not", "never", "don't"]))
def test_a_negated_decision_is_never_the_same_decision(decision, negation):
    assert not relation(decision, f"{negation} {decision}").same
    assert not relation(f"{negation} {decision}", decision).same


@given(st.sampled_from(POOL), st.sampled_from(POOL))
def test_sameness_is_symmetric(a, b):
    assert relation(a, b).same == relation(b, a).same


# --- options given by the asker --------------------------------------------------------------

OPTIONS = ("PostgreSQL", "MongoDB", "Cassandra")


@pytest.mark.parametrize(
    ("decision", "index"),
    [
        ("PostgreSQL", 0), ("postgresql.", 0), ("**MongoDB**", 1), ("  mongodb ", 1), ("B", 1), ("b", 1), ("2", 1),
        ("Option C", 2), ("option 3", 2), ("B) MongoDB", 1), ("Use PostgreSQL", 0), ("postgres", None),
        ("D", None), ("4", None), ("B) PostgreSQL", None), ("MongoDB or Cassandra", None), ("none of these", None),
    ],
)  # fmt: skip
def test_a_decision_names_an_option_by_its_text_letter_or_number(decision, index):
    assert match_option(decision, OPTIONS) == index


def test_with_options_grouping_is_exact_per_option_and_strays_are_not_counted():
    result = evaluate(ballots("PostgreSQL", "B", "option 2", "postgresql.", "postgres"), "low", 85, options=OPTIONS)
    assert result.groups == (("PostgreSQL", ("Panelist A", "Panelist D")), ("MongoDB", ("Panelist B", "Panelist C")))
    assert result.votes == 4
    assert not result.reached
    assert any("Panelist E" in note and "postgres" in note and "not counted" in note for note in result.notes)


def test_with_options_the_verdict_is_the_option_as_the_asker_wrote_it():
    result = evaluate(ballots("a", "postgresql", "Option A"), "high", 85, options=OPTIONS)
    assert result.reached
    assert result.decision == "PostgreSQL"


def test_with_options_no_matching_ballot_means_no_valid_votes():
    result = evaluate(ballots("Redis", "SQLite"), "low", 85, options=OPTIONS)
    assert not result.reached
    assert result.votes == 0
    assert "no valid votes" in result.notes


def test_the_options_block_lists_each_option_to_copy_verbatim():
    assert options_block(()) == ""
    block = options_block(OPTIONS)
    assert "exactly" in block
    assert all(f"- {option}" in block for option in OPTIONS)


@pytest.mark.parametrize("step", ["vote", "revote", "tiebreak"])
def test_vote_prompts_ask_for_a_bare_choice_and_carry_the_options(step):
    template = (PROMPTS_DIR / f"{step}.md").read_text(encoding="utf-8")
    assert set(re.findall(r"\$(\w+)", template)) == {"brief", "options_block"} | (
        {"dossier"} if step != "vote" else set()
    )
    with_options = render(step, brief="B", dossier="D", options_block=options_block(OPTIONS))
    assert "- MongoDB" in with_options
    without = render(step, brief="B", dossier="D", options_block="")
    assert "1–6 words" in without
    assert '"decision"' in without


def test_with_options_a_ballot_is_read_as_the_option_it_names():
    assert parse_ballot("Panelist A", '{"decision": "B", "confidence": 0.7}', OPTIONS).decision == "MongoDB"
    assert parse_ballot("Panelist A", '{"decision": "**postgresql**", "confidence": 0.7}', OPTIONS).decision == (
        "PostgreSQL"
    )
    with pytest.raises(VoteParseError, match="none of the options"):
        parse_ballot("Panelist A", '{"decision": "Redis", "confidence": 0.7}', OPTIONS)


def test_the_threshold_applies_to_the_votes_cast_and_the_seats_are_reported():
    result = evaluate(ballots("approve", "approve"), "low", 85, seats=3)
    assert result.reached
    assert result.as_dict()["agreement"] == "2/2"
    assert result.as_dict()["seats"] == 3
