"""The guards the judge cannot overrule (numbers of one quantity, yes and no, a proposition and its
negation) and what they only notice."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from debates.engine import guards, quantities
from debates.engine.reading.words import STOP

WORD = st.from_regex(r"[a-z]{4,9}", fullmatch=True).filter(lambda w: w not in STOP | guards.NEGATIONS)


@given(st.text(max_size=200), st.text(max_size=200))
def test_the_guards_never_crash_and_are_symmetric(a, b):
    assert bool(guards.conflict(a, b)) == bool(guards.conflict(b, a))


@given(st.lists(WORD, min_size=1, max_size=4).map(" ".join), st.sampled_from(["not", "do not", "never", "don't"]))
def test_a_decision_and_its_negation_always_conflict(decision, negation):
    assert guards.conflict(decision, f"{negation} {decision}")


@given(st.integers(0, 10**6), st.integers(0, 10**6))
def test_different_counts_of_one_thing_conflict_and_equal_ones_do_not(x, y):
    assert bool(guards.conflict(f"Run {x} workers", f"Run {y} workers")) == (x != y)


@pytest.mark.parametrize(
    ("text", "quantity"),
    [
        ("1,000 rows", ("", 1000.0)),
        ("1k rows", ("", 1000.0)),
        ("one thousand rows", ("", 1000.0)),
        ("a million rows", ("", 1e6)),
        ("2M rows", ("", 2e6)),
        ("un milione di righe", ("", 1e6)),
        ("2 weeks", ("time", 14 * 86400.0)),
        ("two weeks", ("time", 14 * 86400.0)),
        ("14 days", ("time", 14 * 86400.0)),
        ("a 30-second timeout", ("time", 30.0)),
        ("16GB", ("bytes", 16e9)),
        ("50 per cent", ("percent", 0.5)),
        ("50%", ("percent", 0.5)),
        ("1,5 secondi", ("time", 1.5)),
        ("tre repliche", ("", 3.0)),
    ],
)
def test_a_number_is_read_with_its_unit_in_the_forms_models_write(text, quantity):
    assert quantity in quantities.quantities(text)


@pytest.mark.parametrize("text", ["the one with replicas", "one of them", "30 per second", "in Q3"])
def test_words_that_only_look_like_quantities_are_not_read_as_one(text):
    assert quantities.quantities(text) <= {("", 30.0)}  # "30 per second" is 30 of something, not 30 per cent


@pytest.mark.parametrize(
    ("a", "b", "why"),
    [
        ("Yes", "No, never", "one answers yes, the other no"),
        ("Migrate", "Do not migrate", "“migrate” is negated in one and affirmed in the other"),
        ("Migrate to Kubernetes", "Do not migrate to Kubernetes", "“migrate to kubernetes” is negated"),
        ("PostgreSQL instead of MySQL", "MySQL", "“mysql” is negated in one and affirmed in the other"),
        ("Use 3 replicas", "Use 5 replicas", "different numbers (3 and 5)"),
        ("Two weeks", "Two months", "different numbers"),
        ("Ship in Q3", "Ship in Q4", "different versions or periods (q3 and q4)"),
        ("Use 3 replicas", "Use 5 replicas, not 3", "different numbers (3 and 5)"),  # what is refused aside
        ("Ship in Q3", "Not Q3 — ship in Q4", "different versions or periods (q3 and q4)"),
        ("Use Python 3.11", "Use Python 3.12", "different numbers (3.11 and 3.12)"),
        ("Increase the pool", "Decrease the pool", "“increase” is the opposite of “decrease”"),
    ],
)
def test_a_conflict_says_why_in_words(a, b, why):
    assert why in guards.conflict(a, b)


def test_a_negated_verb_leaves_its_object_affirmed():
    assert guards.conflict("Don't increase the timeout", "Decrease the timeout") == ""
    assert guards.conflict("Do not migrate now; migrate in Q3", "Migrate in Q3") == ""


def test_a_numbers_thing_decides_which_numbers_are_compared():
    assert guards.conflict("Run 3 replicas in 2 zones", "Run 3 replicas") == ""
    assert guards.conflict("Approve after 2 fixes", "Approve with 3 reviewers") == ""
    assert "different numbers (15 and 16)" in guards.conflict("Postgres 15", "Postgres 16")
    assert "different numbers (2 weeks and 4 weeks)" in guards.conflict("2-3 weeks", "4 weeks")
    assert guards.conflict("Two to three weeks", "2 weeks") == ""


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Don't move to microservices", "Stay on the monolith"),  # issue 49: the word list split a unanimous panel
        ("No — keep the monolith this year", "Don't migrate to microservices this year"),
        ("Keep the monolith", "Don't replace the monolith"),
        ("Migrate later", "Don't migrate now"),
        ("Don't go async", "Keep the API synchronous"),
        ("Don't build it", "Buy it"),
        ("Fix CI before migrating", "Migrate after fixing CI"),
        ("No cache needed — just add an index", "Add an index; a cache isn't necessary"),
        ("Should we migrate? No.", "Do not migrate"),
        ("Opt in to the beta", "Do not opt out of the beta"),  # "out" negated is "in" affirmed
        ("Scale the cluster up", "Don't scale the cluster down"),
        ("Stay on Postgres 15", "Do not upgrade to Postgres 16 this quarter"),  # 16 is refused, not given
        ("Stay with v1 of the API", "Don't move to v2 of the API yet"),
        ("Yes — but not before Q3", "Yes, in Q3"),  # "not before Q3" is not "not Q"
        ("Don't hire 5 engineers; hire 2", "Hire 2 engineers"),  # "hire 5 engineers" is refused, not "hire"
    ],
)
def test_one_position_in_negated_and_affirmed_words_is_no_conflict(a, b):
    assert guards.conflict(a, b) == ""
    assert guards.conflict(b, a) == ""


@pytest.mark.parametrize(
    ("a", "b", "why"),
    [
        ("Stay on the monolith", "Move to microservices", "“monolith” may be the opposite of “microservices”"),
        ("Don't migrate", "Migrate to microservices next year", "“migrate” is negated in one and affirmed"),
    ],
)
def test_what_is_no_evidence_is_only_noticed(a, b, why):
    assert guards.conflict(a, b) == ""
    assert why in guards.noticed(a, b)
    assert guards.apart(a, b) == guards.noticed(a, b)


@given(st.lists(WORD, min_size=1, max_size=4).map(" ".join), st.sampled_from(["Yes", "No", "Keep it", "Migrate"]))
def test_an_answer_never_conflicts_with_itself_and_a_reservation(decision, lead):
    answer = f"{lead}, {decision}"
    assert guards.conflict(answer, f"{answer}, but only after the audit") == ""
