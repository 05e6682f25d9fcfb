"""Reading answers as real models write them, and comparing them with the expected answer."""

from decimal import Decimal

import pytest

from debates.evaluation.answers import Kind, canonical, kind_of, read, read_number, read_option, same

# (what a model wrote, the number it gives): how models write a numeric answer.
NUMBERS_IN_AN_ANSWER_LINE = [
    ("42", 42),
    ("**42**", 42),
    ("42.", 42),
    ("The result is 42", 42),
    ("= 42", 42),
    ("42 (approximately)", 42),
    (r"\boxed{42}", 42),
    (r"$\boxed{-27}$", -27),
    ("1,234", 1234),
    ("−7", -7),
    ("7.0", 7),
    ("x = 7", 7),
    ("The answer is **7**.", 7),
    ("3+4*5+6-7*8 = -27", -27),
    ("-27 (from 3+20+6-56)", -27),
    ("$1,234.50", Decimal("1234.5")),
    ("<think>maybe 41</think>42", 42),
    ("`42`", 42),
]
# A whole response with no ANSWER line: its answer is at the end.
NUMBERS_IN_A_WHOLE_TEXT = [
    ("4*5 = 20 and 7*8 = 56, so 3 + 20 + 6 - 56 = -27.", -27),
    ("The answer is -27. Check: 29 - 56 = -27.", -27),
    ("So we get **-27**. Let me double-check the step 56 - 29 = 27.", -27),
    ("<think>\nIt is 41? No: 6*7 = 42.\n</think>\nThe answer is 42", 42),
    (r"Therefore the final answer is $\boxed{42}$. (I am 90% sure.)", 42),
    ("First 2, then 3, finally 42", 42),
]
NOT_NUMBERS = ["forty-two", "I cannot tell", "", "<think>42</think>no idea", "B1 and C2 agree"]


@pytest.mark.parametrize(("written", "number"), NUMBERS_IN_AN_ANSWER_LINE)
def test_an_answer_line_is_read_as_models_write_numbers(written: str, number: int) -> None:
    assert read_number(written) == number


@pytest.mark.parametrize(("written", "number"), NUMBERS_IN_A_WHOLE_TEXT)
def test_a_whole_text_is_read_for_the_answer_it_ends_on(written: str, number: int) -> None:
    assert read_number(written, whole=True) == number


@pytest.mark.parametrize("written", NOT_NUMBERS)
def test_words_are_not_numbers_and_count_as_wrong(written: str) -> None:
    assert read_number(written) is None
    assert read_number(written, whole=True) is None
    assert not same(canonical(written, Kind.NUMBER, ()), "42", Kind.NUMBER)


def test_fractions_compare_within_a_relative_tolerance_and_whole_numbers_exactly() -> None:
    assert same("7.0000001", "7", Kind.NUMBER)
    assert same("0.3333333", "0.333333", Kind.NUMBER)
    assert not same("7.01", "7", Kind.NUMBER)
    assert not same("1000001", "1000000", Kind.NUMBER)
    assert not same("", "0", Kind.NUMBER)


def test_the_canonical_number_drops_separators_signs_and_trailing_zeros() -> None:
    assert canonical("1,234.50", Kind.NUMBER, ()) == "1234.5"
    assert canonical("−0", Kind.NUMBER, ()) == "0"
    assert canonical("7.000", Kind.NUMBER, ()) == "7"


OPTIONS = ("PostgreSQL", "MySQL", "SQLite")


@pytest.mark.parametrize(
    ("written", "index"),
    [("B", 1), ("b", 1), ("2", 1), ("Option B", 1), ("B) MySQL", 1), ("mysql", 1), ("**MySQL**", 1), ("answer: C", 2)],
)
def test_an_option_is_named_by_its_letter_number_or_text(written: str, index: int) -> None:
    assert read_option(written, OPTIONS) == index


def test_a_whole_text_names_the_option_it_mentions_last() -> None:
    text = "PostgreSQL is strong, but for an embedded app the answer is (C)."
    assert read_option(text, OPTIONS, whole=True) == 2
    assert read_option("Not MySQL: I pick PostgreSQL.", OPTIONS, whole=True) == 0
    assert read_option("None of these fits.", OPTIONS, whole=True) is None
    assert read_option("A nice idea.", OPTIONS, whole=True) is None  # an article is not option A


def test_text_answers_compare_without_case_spacing_punctuation_or_markdown() -> None:
    assert same(canonical("**Canberra.**", Kind.TEXT, ()), "canberra", Kind.TEXT)
    assert same(canonical("  the   Canberra ", Kind.TEXT, ()), "Canberra", Kind.TEXT)
    assert not same(canonical("Sydney", Kind.TEXT, ()), "Canberra", Kind.TEXT)


def test_the_kind_follows_the_expected_answer() -> None:
    assert kind_of("42", ()) == Kind.NUMBER
    assert kind_of("-1,234.5", ()) == Kind.NUMBER
    assert kind_of("$5", ()) == Kind.NUMBER
    assert kind_of("7 apples", ()) == Kind.TEXT
    assert kind_of("Canberra", ()) == Kind.TEXT
    assert kind_of("B", ("x", "y")) == Kind.OPTION


def test_the_answer_line_wins_and_the_text_is_the_fallback() -> None:
    assert read("41", "The answer is 42", Kind.NUMBER, ()).read == "41"
    assert read("forty-two", "The answer is 42", Kind.NUMBER, ()).read == ""  # a line was given: no second chance
    fallback = read("", "The answer is 42", Kind.NUMBER, ())
    assert (fallback.read, fallback.source) == ("42", "text")
    assert read("", "no idea", Kind.NUMBER, ()).source == "none"
