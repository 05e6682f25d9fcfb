"""A debate as one chat reply: voices that write at once are read one at a time, each word once."""

from decimal import Decimal

from hypothesis import given
from hypothesis import strategies as st

from debates.integrations.openai.transcript import Transcript
from debates.live.watch import Spoken, Words

VOICES = {"0:p1": "Panelist A", "0:p2": "Panelist B", "0:p3": "Panelist C"}


def spoken(key: str, text: str) -> Spoken:
    return Spoken(key, VOICES[key], "answer", "done", text, "", 10, Decimal("0.01"), told=True)


@given(st.lists(st.tuples(st.sampled_from(sorted(VOICES)), st.text("abc ", min_size=1, max_size=5)), max_size=40))
def test_voices_writing_at_once_are_each_read_whole_and_once(writes):
    transcript = Transcript()
    texts = {key: "" for key in VOICES}
    reasoning = []
    for key, words in writes:
        texts[key] += words
        reasoning += transcript.feed(Words(key, VOICES[key], "answer", words))
    for key in VOICES:  # they end in their order
        if texts[key]:
            reasoning += transcript.feed(spoken(key, texts[key]))
    said = "".join(piece.text for piece in reasoning)
    for key, text in texts.items():
        if text:
            heading = f"**{VOICES[key]}** · blind answers\n"
            assert said.count(heading) == 1
            assert said.split(heading, 1)[1].startswith(text + "\n")  # whole, and nothing inside it
    assert all(piece.field == "reasoning" for piece in reasoning)


def test_the_synthesis_is_the_content_and_a_restart_is_said():
    transcript = Transcript()
    pieces = transcript.feed(Words("2:moderator", "Moderator", "synthesis", "Use replicas"))
    pieces += transcript.feed(Words("2:moderator", "Moderator", "synthesis", "."))
    assert [(p.field, p.text) for p in pieces] == [("content", "Use replicas"), ("content", ".")]
