"""The embedded model's text on its way from the generation thread to the caller: the first token
at once, the rest in order and complete without waking the caller per token, and a caller that
leaves stops the generation.

The model is a stand-in for llama.cpp that streams a script of tokens and can hold at a token
until the test lets it go, so what the caller has seen by then is decided by the test, not by
the machine's speed.
"""

import asyncio
import itertools
import threading
import time
from collections.abc import Iterable, Iterator
from contextlib import aclosing

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from debates.providers import local, stream
from debates.providers.base import Chunk, Endpoint, Message, Voice
from tests.providers.helpers import Context, collect, completion, text_of
from tests.waiting import wait_for

QUESTION = [Message("user", "Shard or replicate?")]
VOICE = Voice("Local", "smollm2-135m", Endpoint(name="Embedded", wire="local", total_timeout=60), max_tokens=100_000)
PATIENCE_S = 30  # only bounds a hung test: a held token waits at most this long


class ScriptedModel:
    """Streams ``tokens`` one chunk each, as llama.cpp does, each after its pause (in seconds, none
    once ``pauses`` runs out); holds before token ``hold_at`` until ``go``."""

    n_tokens = 0

    def __init__(self, tokens: Iterable[str], hold_at: int | None = None, pauses: Iterable[float] = ()) -> None:
        self.tokens, self.hold_at, self.pauses = tokens, hold_at, iter(pauses)
        self.go = threading.Event()
        self.finished = threading.Event()  # the generation ran out of tokens or was closed
        self._ctx = Context()

    def tokenize(self, text: bytes, add_bos: bool = False, special: bool = False) -> list[int]:
        return list(text)

    def detokenize(self, tokens: list[int]) -> bytes:
        return bytes(tokens)

    def create_chat_completion(self, messages: list[dict], **settings) -> Iterator[dict]:
        return self.parts()

    def parts(self) -> Iterator[dict]:
        try:
            for i, token in enumerate(self.tokens):
                if i == self.hold_at:
                    self.go.wait(PATIENCE_S)
                time.sleep(next(self.pauses, 0.0))
                yield {"choices": [{"delta": {"content": token}, "finish_reason": None}]}
            yield {"choices": [{"delta": {}, "finish_reason": "stop"}]}
        finally:
            self.finished.set()


@pytest.fixture
def scripted(monkeypatch: pytest.MonkeyPatch):
    """Installs a ScriptedModel in place of llama.cpp; never leaves a worker waiting for ``go``."""
    models: list[ScriptedModel] = []

    def install(model: ScriptedModel) -> ScriptedModel:
        monkeypatch.setattr(local, "model", lambda: model)
        models.append(model)
        return model

    yield install
    for model in models:
        model.go.set()


async def test_the_first_token_reaches_the_caller_while_the_model_is_still_generating(scripted):
    model = scripted(ScriptedModel(["Read ", "replicas ", "first."], hold_at=1))
    async with aclosing(stream(VOICE, QUESTION)) as events:
        first = await anext(events)
        assert first == Chunk("Read ")
        assert not model.finished.is_set()  # the model holds at its second token until we have the first
        model.go.set()
        rest = [event async for event in events]
    assert text_of([first, *rest]) == "Read replicas first."
    assert completion(rest).tokens_out == 3


async def test_tokens_that_come_fast_are_handed_over_a_few_at_a_time(scripted):
    tokens = [f"w{i} " for i in range(500)]
    scripted(ScriptedModel(tokens))
    events = await collect(VOICE, QUESTION)
    chunks = [e for e in events if isinstance(e, Chunk)]
    assert chunks[0] == Chunk("w0 ")  # the first at once, alone
    assert len(chunks) < len(tokens)  # the rest wait for each other: the caller is not woken per token
    assert text_of(events) == "".join(tokens)


# Text with nothing to mend (debates/providers/mojibake.py): ASCII, kana, emoji.
UNMANGLED = st.text(
    st.one_of(
        st.characters(codec="ascii"),
        st.characters(min_codepoint=0x3040, max_codepoint=0x30FF),
        st.characters(min_codepoint=0x1F600, max_codepoint=0x1F64F),
    ),
    min_size=1,
    max_size=4,
)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(tokens=st.lists(UNMANGLED, min_size=1, max_size=40), slow=st.lists(st.booleans(), max_size=6))
def test_every_token_arrives_once_and_in_order_however_the_pieces_are_cut(scripted, tokens, slow):
    # Tokens slower than the hand-over interval cut the text into pieces in varied places.
    tokens = ["Answer: ", *tokens]
    scripted(ScriptedModel(tokens, pauses=[local.EMIT_INTERVAL * 1.5 if s else 0.0 for s in slow]))
    events = asyncio.run(collect(VOICE, QUESTION))
    assert text_of(events) == completion(events).text == "".join(tokens)
    assert completion(events).tokens_out == len(tokens)


# SmolLM2's own tokens for "doesn’t" read as Windows-1252: "â" then "€™" (one token in its vocabulary).
MANGLED = ["It ", "doesn", "â", "€™", "t matter: caf", "Ã", "©", " at 5 â", "‚", "¬ ", "ðŸ", "˜", "€", "."]


def test_mojibake_split_across_tokens_reaches_the_caller_mended_in_every_piece(scripted, monkeypatch):
    monkeypatch.setattr(local, "EMIT_INTERVAL", 0)  # every token goes out as soon as it may
    scripted(ScriptedModel(MANGLED))

    events = asyncio.run(collect(VOICE, QUESTION))

    pieces = [e.text for e in events if isinstance(e, Chunk)]
    assert "".join(pieces) == completion(events).text == "It doesn’t matter: café at 5 € 😀."
    assert all(pieces)  # no empty piece while a word waits
    assert not any(mark in piece for piece in pieces for mark in "âÃð")
    assert completion(events).tokens_out == len(MANGLED)


async def test_a_caller_that_stops_reading_stops_the_generation_and_frees_the_model(scripted):
    endless = scripted(ScriptedModel((f"t{i} " for i in itertools.count()), pauses=itertools.repeat(0.002)))
    seen = []
    async with aclosing(stream(VOICE, QUESTION)) as events:
        async for event in events:
            seen.append(event)
            if len(seen) == 3:
                break
    assert all(isinstance(e, Chunk) for e in seen)
    await wait_for(endless.finished.is_set, "the endless generation to be closed")  # nothing more for nobody

    scripted(ScriptedModel(["Next ", "one."]))
    assert text_of(await collect(VOICE, QUESTION)) == "Next one."  # the model is free for the next caller


async def test_a_caller_cancelled_mid_answer_stops_the_generation(scripted):
    endless = scripted(ScriptedModel((f"t{i} " for i in itertools.count()), pauses=itertools.repeat(0.002)))
    chunks: list[Chunk] = []

    async def listen() -> None:
        async for event in stream(VOICE, QUESTION):
            if isinstance(event, Chunk):
                chunks.append(event)

    task = asyncio.ensure_future(listen())
    await wait_for(lambda: len(chunks) >= 2, "two pieces of the answer")
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await wait_for(endless.finished.is_set, "the endless generation to be closed")
    assert "".join(c.text for c in chunks).startswith("t0 t1 ")  # what arrived came in order
