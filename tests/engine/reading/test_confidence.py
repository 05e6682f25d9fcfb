"""The one confidence rule, for every role's output."""

import pytest

from debates.engine.reading import confidence


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (0.85, 0.85),
        (0, 0.0),
        (1, 1.0),
        ("0.85", 0.85),
        ("85%", 0.85),
        ("85 %", 0.85),
        (85, 0.85),
        ("85", 0.85),
        (100, 1.0),
        ("7/10", 0.7),
        ("7 out of 10", 0.7),
        ("4/5", 0.8),
        ("0,8", 0.8),
        ("very high", 0.95),
        ("High", 0.8),
        ("medium", 0.5),
        ("Moderate", 0.5),
        ("low", 0.3),
        ("very low", 0.1),
        ("medium-high", 0.7),
        ("high confidence", 0.8),
        (None, None),
        ("", None),
    ],
)
def test_confidence_is_read_in_every_usual_shape(value, expected):
    assert confidence.value(value) == (pytest.approx(expected) if expected is not None else None)


@pytest.mark.parametrize(
    ("value", "why"),
    [
        (1.5, "ambiguous"),
        (7, "ambiguous"),
        (10, "ambiguous"),
        ("1.5", "ambiguous"),
        (-0.2, "outside"),
        (101, "outside"),
        ("11/10", "outside"),
        ("120%", "outside"),
        ("very", "not a number"),
        (True, "not a number"),
        (float("nan"), "outside"),
        (10**400, "outside"),
    ],
)
def test_a_confidence_that_cannot_be_read_safely_is_none_with_the_reason_not_a_guess(value, why):
    read = confidence.read(value)
    assert read.value is None
    assert why in read.problem


@pytest.mark.parametrize(
    ("value", "around", "expected"),
    [(8, "on a scale of 1-10", 0.8), ("7", "(1–10)", 0.7), (7, "7 out of 10", 0.7), (8, "scala da 1 a 10", 0.8)],
)
def test_a_bare_score_is_read_out_of_ten_only_where_the_text_states_that_scale(value, around, expected):
    assert confidence.value(value, around) == pytest.approx(expected)
    assert confidence.value(value) is None


@pytest.mark.parametrize(
    ("word", "expected"),
    [("alta", 0.8), ("Molto alta", 0.95), ("baja", 0.3), ("élevée", 0.8), ("moyenne", 0.5), ("sehr hoch", 0.95)],
)
def test_confidence_words_read_the_same_in_every_language(word, expected):
    assert confidence.value(word) == pytest.approx(expected)
