"""Voices on the embedded model take turns: a waiting voice says where it stands in line, its clock
starts when its generation does, and its latency leaves the wait out (kept apart, in its attempt).

The model is a stand-in for llama.cpp whose first generation holds the model until the test lets
it go, so who waits, and for how long at least, is decided by the test, not by the machine.
"""

import asyncio
import threading
from collections.abc import Iterator

import pytest

from debates.engine import calls
from debates.engine.events import ContributionFinished, ContributionQueued, ContributionStarted
from debates.engine.vocabulary import StepKind
from debates.providers import local
from debates.providers.base import Message
from tests.engine.conftest import make_seat
from tests.waiting import wait_for

HELD_S = 0.5  # how long the first generation keeps the model: the others wait at least this long


class HeldModel:
    """Answers every prompt in three tokens; the first generation waits for ``release`` first."""

    n_tokens = 0

    def __init__(self) -> None:
        self.release = threading.Event()
        self.generations = 0

    def tokenize(self, text: bytes, add_bos: bool = False, special: bool = False) -> list[int]:
        return list(text)

    def detokenize(self, tokens: list[int]) -> bytes:
        return bytes(tokens)

    def create_chat_completion(self, messages: list[dict], **settings) -> Iterator[dict]:
        self.generations += 1
        if self.generations == 1:
            self.release.wait(timeout=30)
        return self.tokens()

    def tokens(self) -> Iterator[dict]:
        for word in ("Read ", "replicas ", "first."):
            yield {"choices": [{"delta": {"content": word}, "finish_reason": None}]}
        yield {"choices": [{"delta": {}, "finish_reason": "stop"}]}


@pytest.fixture
def held(monkeypatch: pytest.MonkeyPatch) -> HeldModel:
    model = HeldModel()
    monkeypatch.setattr(local, "model", lambda: model)
    yield model
    model.release.set()  # never leave a worker thread waiting


def voices(n: int) -> list:
    return [make_seat(f"p{i}", f"Panelist {chr(65 + i)}", "smollm2-135m", "smollm", "", "local") for i in range(n)]


def ask(sink, seat) -> asyncio.Task:
    messages = [Message("user", f"Shard or replicate? ({seat.label})")]
    return asyncio.ensure_future(calls.call(sink, calls.Tally(seat, 0, StepKind.ANSWER, messages), lambda _text: ""))


async def test_three_local_voices_wait_their_turn_and_their_latency_leaves_the_wait_out(held, sink):
    seats = voices(3)
    running = [ask(sink, seat) for seat in seats]
    await wait_for(lambda: len({e.seat for e in sink.of(ContributionQueued)}) == 2, "two voices to queue")
    await asyncio.sleep(HELD_S)
    held.release.set()
    results = {r.seat: r for r in await asyncio.gather(*running)}

    generating = first(sink)
    waiting = [s.key for s in seats if s.key != generating]
    places = {(e.position, e.of) for e in sink.of(ContributionQueued)}
    assert {(2, 3), (3, 3)} <= places  # "queued (2 of 3)", "queued (3 of 3)" while the first one generates
    assert (2, 2) in places  # the last one moved up when the first was done
    assert all(e.position > 1 for e in sink.of(ContributionQueued))  # the one generating is never "queued"
    for seat in waiting:
        queued = [i for i, e in enumerate(sink.events) if isinstance(e, ContributionQueued) and e.seat == seat]
        started = [i for i, e in enumerate(sink.events) if isinstance(e, ContributionStarted) and e.seat == seat]
        assert started[-1] > queued[-1]  # its clock starts again when its generation does
        attempt = results[seat].attempts[0]
        assert attempt["queued_ms"] >= HELD_S * 1000
        assert results[seat].latency_ms < attempt["queued_ms"]  # three tokens, without the wait
    assert "queued_ms" not in results[generating].attempts[0]
    assert results[generating].latency_ms >= HELD_S * 1000  # it held the model all that time: that is its latency
    assert all(r.ok and r.text == "Read replicas first." for r in results.values())
    assert not sink.of(ContributionFinished)  # calls.call returns results; storing them is the caller's


async def test_a_voice_cancelled_while_queued_leaves_the_line_and_the_next_moves_up(held, sink):
    seats = voices(3)
    running = [ask(sink, seat) for seat in seats]
    await wait_for(lambda: len({e.seat for e in sink.of(ContributionQueued)}) == 2, "two voices to queue")
    second, third = sorted((e for e in sink.of(ContributionQueued) if e.of == 3), key=lambda e: e.position)[:2]
    running[int(second.seat[1:])].cancel()
    await wait_for(
        lambda: any(e.seat == third.seat and e.position == 2 for e in sink.of(ContributionQueued)),
        "the last voice to move up",
    )
    held.release.set()
    done = await asyncio.gather(*running, return_exceptions=True)
    assert sum(isinstance(result, asyncio.CancelledError) for result in done) == 1
    assert held.generations == 2  # the cancelled voice never reached the model


def first(sink) -> str:
    """The voice that got the model at once: the only one never queued (once the others are)."""
    queued = {e.seat for e in sink.of(ContributionQueued)}
    started = [e.seat for e in sink.of(ContributionStarted)]
    return next((seat for seat in started if seat not in queued), "")
