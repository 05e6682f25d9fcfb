"""The vote protocol's maths, on exact fractions."""

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from debates.engine.consensus import THRESHOLDS, evaluate
from debates.engine.reading.ballot import NONE_OF_THE_OPTIONS, Ballot
from debates.engine.sameness import option_named, relation


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


@given(
    st.lists(st.sampled_from(["yes", "no", "maybe", "Yes.", "NO"]), min_size=1, max_size=9),
    st.sampled_from(["low", "medium", "high"]),
)
def test_consensus_is_reached_exactly_when_the_largest_share_meets_the_threshold(decisions, criticality):
    result = evaluate(ballots(*decisions), criticality, 85)
    sizes = sorted((len(labels) for _, labels in result.groups), reverse=True)
    share = Fraction(sizes[0], len(decisions))
    unique_top = len(sizes) == 1 or sizes[1] < sizes[0]
    assert result.reached == (len(decisions) >= 2 and share >= THRESHOLDS[criticality] and unique_top)
    assert sum(sizes) == len(decisions)


@pytest.mark.parametrize(("a", "b"), [("Option A", "option B"), ("class 1", "class 2"), ("plan 10", "plan 11")])
def test_decisions_differing_in_a_number_or_a_letter_are_never_grouped(a, b):
    assert len(evaluate(ballots(a, b, a), "low", 85).groups) == 2


def test_spelling_variants_of_one_decision_are_grouped():
    assert len(evaluate(ballots("approved", "Approve", "approve."), "low", 85).groups) == 1


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
    "approve",
    "Approve.",
    "approved",
    "disapprove",
    "do not approve",
    "reject",
    "postgres",
    "PostgreSQL",
    "Use PostgreSQL",
    "postgresql 16",
    "ship it",
    "skip it",
    "shop it",
    "option a",
    "option b",
    "yes",
    "no",
    "increase the budget",
    "decrease the budget",
    "increase budget",
    "organise",
    "organize",
    "organised",
]


@given(
    st.lists(st.sampled_from(POOL), min_size=1, max_size=8).flatmap(
        lambda ds: st.tuples(st.just(ds), st.permutations(range(len(ds))))
    ),
    st.sampled_from(["low", "medium", "high"]),
)
def test_who_voted_what_in_which_order_never_changes_the_result(case, criticality):
    decisions, order = case
    plain = evaluate(ballots(*decisions), criticality, 85)
    shuffled = evaluate(ballots(*(decisions[i] for i in order)), criticality, 85)
    assert (plain.reached, plain.decision, plain.agreement, plain.notes) == (
        shuffled.reached,
        shuffled.decision,
        shuffled.agreement,
        shuffled.notes,
    )
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


def test_with_options_grouping_is_exact_per_option_and_a_stray_is_a_vote_for_none_of_them():
    result = evaluate(ballots("PostgreSQL", "B", "option 2", "postgresql.", "Redis"), "low", 85, options=OPTIONS)
    assert result.groups == (
        ("PostgreSQL", ("Panelist A", "Panelist D")),
        ("MongoDB", ("Panelist B", "Panelist C")),
        (NONE_OF_THE_OPTIONS, ("Panelist E",)),
    )
    assert result.votes == 5
    assert not result.reached
    assert any("Panelist E" in note and "Redis" in note and "none of the options" in note for note in result.notes)


DATABASES = ("PostgreSQL", "MySQL", "MongoDB")


def test_ballots_naming_an_option_by_a_short_form_count_for_it_and_reach_a_consensus():
    """Issue 41: three voters meant PostgreSQL; their ballots counted for none and a tie-breaker picked MongoDB."""
    result = evaluate(ballots("postgres", "Postgres.", "**PostgreSQL**"), "low", 85, options=DATABASES)
    assert (result.reached, result.decision, result.escalation) == (True, "PostgreSQL", "")
    assert result.groups == (("PostgreSQL", ("Panelist A", "Panelist B", "Panelist C")),)


@pytest.mark.parametrize(
    ("decision", "named"),
    [
        ("pg", "PostgreSQL"),
        ("Mongo", "MongoDB"),
        ("mysql", "MySQL"),
        ("My SQL", None),  # two words where the option has one: unsure, so none
        ("PostgreSQL or MySQL", None),  # two options: never counted for both, nor for one of them
        ("not MySQL", None),
        ("Avoid MongoDB", None),
        ("SQL", None),  # in two options' names: names neither
    ],
)
def test_an_option_named_by_case_punctuation_a_short_form_or_its_distinctive_word_counts_once(decision, named):
    result = evaluate(ballots(decision, decision), "low", 85, options=DATABASES)
    assert result.groups[0][0] == (named or NONE_OF_THE_OPTIONS)


def test_an_option_is_named_by_its_distinctive_word_and_never_by_a_word_two_share():
    options = ("PostgreSQL with read replicas", "PostgreSQL sharded with Citus", "MongoDB")
    assert [option_named(d, options) for d in ("replicas", "Citus", "PostgreSQL", "sharded postgres")] == [
        0,
        1,
        None,
        1,
    ]


def test_with_options_the_verdict_is_the_option_as_the_asker_wrote_it():
    result = evaluate(ballots("a", "postgresql", "Option A"), "high", 85, options=OPTIONS)
    assert result.reached
    assert result.decision == "PostgreSQL"


def test_with_options_a_panel_agreeing_on_none_of_them_reaches_no_decision():
    result = evaluate(ballots("Redis", "SQLite", "postgresql"), "low", 85, options=OPTIONS)
    assert result.groups[0] == (NONE_OF_THE_OPTIONS, ("Panelist A", "Panelist B"))
    assert result.votes == 3
    assert not result.reached
    assert result.decision is None
    assert result.escalation == "tie_breaker"


def test_the_threshold_applies_to_the_votes_cast_and_the_seats_are_reported():
    result = evaluate(ballots("approve", "approve"), "low", 85, seats=3)
    assert result.reached
    assert result.as_dict()["agreement"] == "2/2"
    assert result.as_dict()["seats"] == 3
