"""runs.execute.InOrder: the engine never waits for its sinks, and the sinks still see a trustworthy order.

A voice's events (start, chunks, retries, end) reach the sink in the order emitted; an event
about the whole run arrives after everything emitted before it, and before anything after it;
one voice's slow event does not hold up another voice; a sink's failure reaches the engine.
"""

import asyncio
from decimal import Decimal

import pytest

from debates.engine.events import (
    ContributionChunk,
    ContributionFinished,
    ContributionResult,
    ContributionStarted,
    Event,
    PhaseChanged,
    RoundFinished,
    RoundStarted,
)
from debates.runs.execute import InOrder, lane_of


class Recording:
    """A sink that notes what it got; ``hold`` makes it wait on an event until released."""

    def __init__(self) -> None:
        self.got: list[Event] = []
        self.holds: dict[int, asyncio.Event] = {}  # by id: events hold dicts
        self.fail_on: Event | None = None
        self.arrived = asyncio.Event()

    def hold(self, event: Event) -> asyncio.Event:
        self.holds[id(event)] = asyncio.Event()
        return self.holds[id(event)]

    async def emit(self, event: Event) -> None:
        if id(event) in self.holds:
            await self.holds[id(event)].wait()
        if event is self.fail_on:
            raise RuntimeError("the DB is gone")
        self.got.append(event)
        self.arrived.set()


def chunk(seat: str, text: str) -> ContributionChunk:
    return ContributionChunk(0, seat, text)


def finished(seat: str) -> ContributionFinished:
    return ContributionFinished(ContributionResult(0, seat, seat, "answer", "done", text="x", cost=Decimal(0)))


async def test_each_voice_in_order_and_whole_run_events_between_everything():
    sink = Recording()
    ordered = InOrder(sink)
    start = RoundStarted(0, "answer", "Round 0", ("p1", "p2"), ("A", "B"))
    events = [
        PhaseChanged("Round 0", 1, 2),
        start,
        ContributionStarted(0, "p1", "A", "answer"),
        ContributionStarted(0, "p2", "B", "answer"),
        *(chunk(seat, f"{seat}-{i} ") for i in range(20) for seat in ("p1", "p2")),
        finished("p1"),
        finished("p2"),
        RoundFinished(0, "done"),
        PhaseChanged("Round 1", 2, 2),
    ]
    for event in events:
        await ordered.emit(event)
    await ordered.drain()
    assert sorted(map(id, sink.got)) == sorted(map(id, events))  # every event, once
    for seat in ("p1", "p2"):
        lane = [e for e in events if lane_of(e) == (0, seat)]
        assert [e for e in sink.got if e in lane] == lane
    position = {id(e): i for i, e in enumerate(sink.got)}
    assert position[id(events[0])] < position[id(start)] < min(position[id(e)] for e in events[2:-2])
    assert max(position[id(e)] for e in events[2:-2]) < position[id(events[-2])] < position[id(events[-1])]


async def test_the_engine_goes_on_while_a_sink_is_busy_and_another_voice_is_not_held_up():
    sink = Recording()
    ordered = InOrder(sink)
    slow = finished("p1")
    release = sink.hold(slow)
    await ordered.emit(slow)  # returns at once: storing it is the sink's business
    await ordered.emit(chunk("p2", "still streaming"))
    await ordered.emit(chunk("p1", "after its end"))
    await asyncio.wait_for(sink.arrived.wait(), 10)
    assert [e.text for e in sink.got] == ["still streaming"]  # p2 got through; p1's lane waits its turn
    release.set()
    await ordered.drain()
    assert sink.got[1:] == [slow, chunk("p1", "after its end")]


async def test_a_whole_run_event_waits_for_every_voice_before_it():
    sink = Recording()
    ordered = InOrder(sink)
    slow = finished("p2")
    release = sink.hold(slow)
    await ordered.emit(slow)
    await ordered.emit(RoundFinished(0, "done"))
    await ordered.emit(chunk("p1", "next round"))
    for _ in range(50):
        await asyncio.sleep(0)
    assert sink.got == []  # the round's end is not shown before its last vote, nor anything after it
    release.set()
    await ordered.drain()
    assert sink.got == [slow, RoundFinished(0, "done"), chunk("p1", "next round")]


async def test_a_sink_failure_reaches_the_engine_and_what_follows_it_is_dropped_until_then():
    sink = Recording()
    ordered = InOrder(sink)
    broken = finished("p1")
    sink.fail_on = broken
    release = sink.hold(broken)  # it fails after the engine has gone on
    await ordered.emit(broken)
    await ordered.emit(chunk("p1", "lost"))
    release.set()
    with pytest.raises(RuntimeError, match="the DB is gone"):
        await ordered.drain()
    sink.fail_on = broken = finished("p2")  # failing at once: the engine's next emit hears of it
    await ordered.emit(broken)
    with pytest.raises(RuntimeError, match="the DB is gone"):
        await ordered.emit(chunk("p2", "never queued"))
    await ordered.emit(PhaseChanged("Failed", 0, 0))  # the run's failure is still delivered
    await ordered.drain()
    assert sink.got == [PhaseChanged("Failed", 0, 0)]


async def test_a_run_failing_on_one_voices_write_still_tells_its_end_when_another_voice_failed_too():
    sink = Recording()
    ordered = InOrder(sink)
    first, second = finished("p1"), finished("p2")
    sink.fail_on = first
    await ordered.emit(first)
    with pytest.raises(RuntimeError, match="the DB is gone"):  # the engine hears of it and stops
        await ordered.emit(chunk("p2", "meanwhile"))
    sink.fail_on = second  # the other voice's write fails the same way before the run's end is told
    await ordered.emit(second)
    await ordered.settle()
    end = PhaseChanged("Failed", 0, 0)
    await ordered.emit(end)
    await ordered.drain()
    assert sink.got == [end]


async def test_a_chunk_for_a_voice_with_nothing_ahead_reaches_the_sink_inside_emit():
    """No turn of the event loop between the engine and the live sink: under load each turn is
    long, and a voice's first words would cross several."""
    sink = Recording()
    ordered = InOrder(sink)
    await ordered.emit(chunk("p1", "first words"))
    assert sink.got == [chunk("p1", "first words")]
