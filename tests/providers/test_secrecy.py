"""A model that quotes the provider's key, in any rendering and split across any chunks: no
rendering of it survives in what the call streams or completes with, and the rest of the answer does."""

import itertools
import string

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from debates.providers.base import Chunk
from debates.providers.secrecy import Secret
from tests.fakes.provider_server import Script
from tests.providers.helpers import WIRES, collect, completion, text_of
from tests.providers.renderings import leaked, quoting, renderings

KEY = "sk-proj-Zq8VtR2mXk41LpW9sYb7NcE3"
# Keys as providers issue them: random, so not a run of a few characters (a key of sixteen zeros
# is written the same in several renderings, which then overlap).
KEY_CHARACTERS = string.ascii_letters + string.digits + "-_"
KEYS = st.text(KEY_CHARACTERS, min_size=16, max_size=64).filter(lambda key: len(set(key)) >= 10)


async def answered(fake_provider, wire: str, key: str, answer: str, chunk_chars: int) -> str:
    """What a call whose model streams ``answer`` in pieces of ``chunk_chars`` shows; its
    completion holds exactly what it streamed."""
    fake_provider.script("m", Script(answer=answer, chunk_chars=chunk_chars))
    events = await collect(fake_provider.voice(wire, "m", api_key=key))
    assert completion(events).text == text_of(events)
    return text_of(events)


@pytest.mark.parametrize("wire", WIRES)
@pytest.mark.parametrize("rendering", renderings(KEY))
async def test_a_key_a_model_quotes_is_removed_in_every_rendering(fake_provider, wire, rendering):
    shown = await answered(fake_provider, wire, KEY, quoting(KEY, rendering), chunk_chars=3)

    assert leaked(shown, KEY) == []
    assert shown.startswith("Before the key.\nHere it is, ")
    assert shown.endswith("(as you asked).\nAfter it, the answer: add read replicas.")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    key=KEYS,
    wire=st.sampled_from(WIRES),
    names=st.lists(st.sampled_from(sorted(renderings(KEY))), min_size=1, max_size=4),
    chunk_chars=st.integers(1, 17),
)
async def test_no_rendering_of_the_key_survives_whatever_the_key_and_the_chunks(
    fake_provider, key, wire, names, chunk_chars
):
    shown = await answered(fake_provider, wire, key, quoting(key, *names), chunk_chars)

    assert leaked(shown, key) == []
    assert "Before the key." in shown
    assert "After it, the answer: add read replicas." in shown


async def test_an_answer_without_the_key_streams_as_it_came(fake_provider):
    answer = "Keys like sk-… start with a prefix; groups of four (abcd efgh) are easier to read aloud."
    fake_provider.script("m", Script(answer=answer, chunk_chars=5))
    events = await collect(fake_provider.voice("openai", "m", api_key=KEY))

    assert text_of(events) == answer
    chunks = [e for e in events if isinstance(e, Chunk)]
    assert len(chunks) > len(answer) // 5 // 2  # words go out as they come, less a held-back end now and then


@given(
    key=KEYS,
    name=st.sampled_from(sorted(renderings(KEY))),
    before=st.text(max_size=40),
    after=st.text(max_size=40),
    cuts=st.lists(st.integers(0, 300), max_size=12),
)
def test_a_key_split_anywhere_across_a_stream_is_removed(key, name, before, after, cuts):
    text = before + renderings(key)[name] + after
    stream = Secret(key).stream()
    bounds = sorted({0, len(text), *(c for c in cuts if c < len(text))})

    streamed = "".join(stream.feed(text[a:b]) for a, b in itertools.pairwise(bounds)) + stream.rest()

    assert leaked(streamed, key) == []
