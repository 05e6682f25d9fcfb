"""The SSE decoder: the same events however the network cuts the bytes."""

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from debates.providers.sse import ServerSentEvent, SSEDecoder, SSEError

STREAM = (
    ": a comment\r\n"
    "event: message_start\r\n"
    'data: {"a": 1}\r\n'
    "\r\n"
    "data: first line\n"
    "data: second line\n"
    "id: 7\n"
    "\n"
    "retry: 10\r"
    "data: [DONE]\r"
    "\r"
)
EVENTS = [
    ServerSentEvent("message_start", '{"a": 1}'),
    ServerSentEvent("message", "first line\nsecond line"),
    ServerSentEvent("message", "[DONE]"),
]


def decode(pieces: list[str]) -> list[ServerSentEvent]:
    decoder = SSEDecoder()
    events = [event for piece in pieces for event in decoder.feed(piece)]
    return events + decoder.close()


def test_events_with_every_line_ending_comments_and_multiline_data():
    assert decode([STREAM]) == EVENTS


@given(st.lists(st.integers(min_value=0, max_value=len(STREAM)), max_size=12))
def test_splitting_the_stream_anywhere_yields_the_same_events(cuts):
    bounds = [0, *sorted(cuts), len(STREAM)]
    assert decode([STREAM[a:b] for a, b in itertools.pairwise(bounds)]) == EVENTS


def test_a_last_event_without_its_blank_line_still_counts():
    assert decode(["data: tail"]) == [ServerSentEvent("message", "tail")]


@pytest.mark.parametrize("line", ["<html>", '{"error": 1}', "datum: x"])
def test_a_body_that_is_not_sse_is_an_error(line):
    with pytest.raises(SSEError):
        decode([line + "\n\n"])
