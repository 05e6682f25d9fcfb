"""Reading a ballot: the voter's JSON as real models write it, and the option it names."""

import contextlib
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from debates.engine.consensus import on_options
from debates.engine.reading.ballot import NONE_OF_THE_OPTIONS, VoteParseError, parse_ballot
from debates.engine.sameness import option_named

OPTIONS = ("PostgreSQL", "MongoDB", "Cassandra")


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


# --- what real models send -------------------------------------------------------------------

CORPUS = Path(__file__).resolve().parents[2] / "corpus" / "votes"
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
    "confidence_one_point_five.txt": ("approve", None),
    "confidence_bare_seven.txt": ("approve", None),
    "confidence_over_one_hundred.txt": ("approve", None),
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


def test_one_point_five_is_never_read_as_one_and_a_half_percent_and_the_vote_stays():
    ballot = parse_ballot("Panelist A", '{"decision": "yes", "confidence": 1.5}')
    assert (ballot.decision, ballot.confidence) == ("yes", None)
    assert "ambiguous" in ballot.note


@pytest.mark.parametrize(
    ("value", "why"), [('"very"', "not a number"), ("1.5e3", "outside"), ("8", "ambiguous"), ('"120%"', "outside")]
)
def test_a_clear_decision_keeps_its_vote_when_the_confidence_cannot_be_read(value, why):
    ballot = parse_ballot("Panelist B", f'{{"decision": "approve", "confidence": {value}, "reasoning": "r"}}')
    assert (ballot.decision, ballot.confidence) == ("approve", None)
    assert ballot.note.startswith("Panelist B's confidence")
    assert why in ballot.note


def test_a_bare_score_beside_a_stated_ten_point_scale_is_read_on_that_scale():
    text = 'On a scale of 1-10, my confidence is 8.\n{"decision": "approve", "confidence": 8, "reasoning": "r"}'
    ballot = parse_ballot("Panelist A", text)
    assert (ballot.confidence, ballot.note) == (pytest.approx(0.8), "")


def test_a_vote_without_confidence_still_counts():
    ballot = parse_ballot("Panelist A", '{"decision": "yes", "reasoning": "because"}')
    assert (ballot.decision, ballot.confidence) == ("yes", None)


@given(st.text(alphabet=st.sampled_from(list("{}[]\"':,/*<>think01.e% decision"))))
def test_parsing_never_crashes_on_brace_soup(text):
    with contextlib.suppress(VoteParseError):
        parse_ballot("Panelist A", text)


@pytest.mark.parametrize(
    ("decision", "index"),
    [
        ("PostgreSQL", 0),
        ("postgresql.", 0),
        ("**MongoDB**", 1),
        ("  mongodb ", 1),
        ("B", 1),
        ("b", 1),
        ("2", 1),
        ("Option C", 2),
        ("option 3", 2),
        ("B) MongoDB", 1),
        ("Use PostgreSQL", 0),
        ("postgres", 0),  # a common short form (issue 41: it counted for none)
        ("D", None),
        ("4", None),
        ("B) PostgreSQL", None),
        ("MongoDB or Cassandra", None),
        ("none of these", None),
        pytest.param("9" * 5000, None, id="5000 digits"),  # no option's number: int() refuses 4,300 digits
    ],
)
def test_a_decision_names_an_option_by_its_text_letter_or_number(decision, index):
    assert option_named(decision, OPTIONS) == index


def test_with_options_a_ballot_is_read_as_the_option_it_names():
    def read(text: str):
        return on_options(parse_ballot("Panelist A", text), OPTIONS)

    assert read('{"decision": "B", "confidence": 0.7}').decision == "MongoDB"
    assert read('{"decision": "**postgresql**", "confidence": 0.7}').decision == "PostgreSQL"
    assert read('{"decision": "B", "confidence": 0.7}').note == ""
    stray = read('{"decision": "Redis", "confidence": "very"}')
    assert (stray.decision, stray.off_options) == (NONE_OF_THE_OPTIONS, True)
    assert stray.note.startswith("Panelist A's decision “Redis” is none of the options")
    assert "confidence" in stray.note  # the reader's own note kept beside it
