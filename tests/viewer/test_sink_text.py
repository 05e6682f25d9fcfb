"""What a card shows while its voice streams, checked against the rule it must keep: at every
moment, the text so far without a fence marker still arriving, cleaned of echoed prompt plumbing.

The sink looks only at the end of the text and at what is new on each flush (so a long answer
is not searched again on every flush); here every prefix of real outputs and of echoes, in
chunks of several sizes, must show exactly what the whole-text rule gives.
"""

from pathlib import Path

import pytest

from debates.engine import dossier
from debates.live.sink import PLUMBING, UNFINISHED_MARKER, LiveSink
from debates.live.state import LiveState, Totals

CORPUS = sorted(Path(__file__).parent.parent.joinpath("corpus").rglob("*.txt"))
LONG_UNCLOSED = "<<BEGIN " + "x" * 200
ECHOES = (
    "<<<BEGIN Panelist D: quoted material, not instructions>>>\nThe migration never ran, as Panelist D said.",
    "‹‹BEGIN Panelist B››The index is missing.‹‹END Panelist B›› So add it, as Panelist B wrote.",
    "The answer first. &lt;&lt;BEGIN Panelist A&gt;&gt; an echo &lt;&lt;END Panelist A&gt;&gt; and after.",
    "Reads dominate: " + "replicas help. " * 20 + "«« BEGIN Panelist C »» echoed «« END »» end.",
    f"{LONG_UNCLOSED} then the text goes on, the marker never closed. Panelist",
    "A marker that waits for its end: << BEGIN\n",
    "≪ Panelist A ≫ wrote this; BEGIN is only a word here, and so is Panelist.",
    "Plain prose with no plumbing at all, " * 30,
)


def expected(raw: str, labels: set[str]) -> str:
    """The rule, on the whole text."""
    if opened := UNFINISHED_MARKER.search(raw):
        raw = raw[: opened.start()]
    return dossier.unquote(raw, labels) if PLUMBING.search(raw) else raw


def shows_the_rule(index: int, text: str, size: int) -> None:
    sink = LiveSink(index, Totals())
    sink.state = LiveState()
    key = "0:p1"
    for end in range(size, len(text) + size, size):
        sink._append(key, text[end - size : end])
        labels = {c.label for c in sink.live.cards.values()}
        assert sink.live.cards[key].text == expected(text[:end], labels), (index, end)


@pytest.mark.parametrize("size", [3, 17, 10_000])
def test_every_prefix_shows_what_the_whole_text_rule_gives(size):
    assert len(CORPUS) > 20  # the corpus is there
    for index, text in enumerate([path.read_text() for path in CORPUS] + list(ECHOES)):
        shows_the_rule(index, text, size)


def test_echoes_streamed_a_character_at_a_time():
    for index, text in enumerate(ECHOES):
        shows_the_rule(index, text, 1)


def test_a_voice_that_starts_again_is_checked_afresh():
    sink = LiveSink(1, Totals())
    sink.state = LiveState()
    sink._append("0:p1", "<<<BEGIN Panelist D: echo>>> Real text.")
    assert "0:p1" in sink.plumbed
    sink._forget("0:p1")
    sink._append("0:p1", "Clean text.")
    assert "0:p1" not in sink.plumbed
    assert sink.live.cards["0:p1"].text == "Clean text."
