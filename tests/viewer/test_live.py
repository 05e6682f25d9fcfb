"""The socket: a snapshot on connect, then exactly the fragments after it — across reconnects.

The LiveSink is driven with synthetic engine events (through the real Recorder, as runs.execute
composes them) while socket clients connect, drop and reconnect in between; each client's
page must show every card's text exactly: nothing missing, nothing doubled.
"""

import asyncio
import re
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from datetime import timedelta
from decimal import Decimal

import pytest
import redis
from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator
from django.core.cache import cache
from django.db import OperationalError
from django.test import Client
from django.utils import timezone

from debates.engine import ledger as ledgers
from debates.engine.events import (
    ContributionChunk,
    ContributionFinished,
    ContributionQueued,
    ContributionResult,
    ContributionStarted,
    LedgerUpdated,
    PanelChanged,
    PhaseChanged,
    RoundFinished,
    RoundStarted,
    RunFinished,
)
from debates.engine.reading import closing
from debates.live import consumers, snapshot
from debates.live.cards import dom_id
from debates.live.consumers import QuestionConsumer
from debates.live.layer import Handoff, SharedChannelLayer
from debates.live.pace import Pace
from debates.live.sink import LiveSink
from debates.live.state import Changes, LiveState, Totals, group_name, publish, read_state, release, state_key
from debates.models import Contribution, Question, Round
from debates.runs import execute, tasks
from debates.runs.execute import Tee
from debates.runs.recorder import Recorder
from teorema.asgi import application
from tests.fakes.provider_server import Script
from tests.integration import cluster as deploy
from tests.viewer.page import Page
from tests.viewer.test_api import bearer
from tests.viewer.test_ledger_page import BLIND
from tests.waiting import wait_for

pytestmark = pytest.mark.django_db(transaction=True)
WAIT = 10.0  # seconds a condition may take on a slow machine; never a threshold


@pytest.fixture
def question(alice, offline_panel, make_question):
    # A lease far ahead: no runner in this process mistakes it for an interrupted run.
    lease = timezone.now() + timedelta(hours=1)
    return make_question(alice, offline_panel, status="running", lease_owner="test", lease_expires=lease)


@pytest.fixture
def sink(question):
    return Tee(Recorder(question.pk, {}), LiveSink(question.pk, Totals()))


@pytest.fixture
def headers(alice, bob) -> Callable:
    """Handshake headers of a signed-in browser tab (sessions made up front: the ORM is sync)."""
    sessions = {}
    for user in (alice, bob):
        browser = Client()
        browser.force_login(user)
        sessions[user.pk] = browser.cookies["sessionid"].value

    def make(user=None, origin: str = "http://127.0.0.1") -> list[tuple[bytes, bytes]]:
        found = [(b"origin", origin.encode()), (b"host", b"127.0.0.1")]
        if user is not None:
            found.append((b"cookie", f"sessionid={sessions[user.pk]}".encode()))
        return found

    return make


class Viewer:
    """One browser tab: a socket and the page it builds."""

    def __init__(self, question_id: int, headers: list) -> None:
        self.socket = WebsocketCommunicator(application, f"/ws/questions/{question_id}/", headers=headers)
        self.page = Page()
        self.dialled = self.closed = False

    async def open(self) -> bool:
        self.dialled = True
        connected, _ = await self.socket.connect(timeout=WAIT)
        if connected:
            self.page.apply(await self.socket.receive_from(timeout=WAIT))
        return connected

    async def until(self, condition: Callable[[], bool]) -> None:
        while not condition():
            self.page.apply(await self.socket.receive_from(timeout=WAIT))

    async def shows(self, dom: str, text: str) -> None:
        await self.until(lambda: dom in self.page.bodies and self.page.text(dom) == text)

    async def close(self) -> None:
        """The tab goes away: its socket is dropped (once; refused or closed by the server alike)."""
        if self.dialled and not self.closed:
            self.closed = True
            await self.socket.disconnect(timeout=WAIT)


@pytest.fixture
async def tab() -> AsyncIterator[Callable[[int, list], Viewer]]:
    """Opens tabs (``tab(question_id, headers)``); every socket is closed at the end, also on failure."""
    tabs: list[Viewer] = []

    def open_tab(question_id: int, headers: list) -> Viewer:
        tabs.append(Viewer(question_id, headers))
        return tabs[-1]

    yield open_tab
    for viewer in tabs:
        await viewer.close()


async def start_round(sink, seats=("p1", "p2")) -> None:
    labels = tuple(f"Panelist {chr(65 + i)}" for i in range(len(seats)))
    await sink.emit(PanelChanged({"voices": [], "calls_planned": 3}))
    await sink.emit(PhaseChanged("Round 0 — independent answers", 1, 2))
    await sink.emit(RoundStarted(0, "answer", "Round 0 — independent answers", seats, labels))
    for seat, label in zip(seats, labels, strict=True):
        await sink.emit(ContributionStarted(0, seat, label, "answer"))
    await sink.sinks[1].flush()  # shown: a tab opened from here on starts from the round


def finished(seat: str, text: str) -> ContributionFinished:
    label = {"p1": "Panelist A", "p2": "Panelist B"}[seat]
    return ContributionFinished(
        ContributionResult(
            0, seat, label, "answer", "done", text=text, tokens_in=10, tokens_out=20, cost=Decimal("0.01")
        )
    )


async def test_a_viewer_sees_the_debate_so_far_then_the_live_stream(question, sink, headers, alice, tab):
    await start_round(sink)
    await sink.emit(ContributionChunk(0, "p1", "Shard "))
    late = tab(question.pk, headers(alice))
    early = tab(question.pk, headers(alice))
    assert await early.open()
    await sink.emit(ContributionChunk(0, "p1", "<b>when</b> & "))
    await early.shows("v0-p1", "Shard <b>when</b> & ")
    assert await late.open()
    assert late.page.text("v0-p1") == "Shard <b>when</b> & "  # the snapshot, escaped text
    await sink.emit(ContributionChunk(0, "p1", "writes\n\ndominate."))
    for viewer in (early, late):
        await viewer.shows("v0-p1", "Shard <b>when</b> & writes\n\ndominate.")
        assert viewer.page.kind("v0-p1") == "stream"


async def test_nothing_is_missing_or_doubled_across_reconnects_mid_stream(question, sink, headers, alice, tab):
    await start_round(sink)
    said = {"p1": "", "p2": ""}

    async def say(seat: str, text: str) -> None:
        said[seat] += text
        await sink.emit(ContributionChunk(0, seat, text))

    first = tab(question.pk, headers(alice))
    assert await first.open()
    for i in range(5):
        await say("p1", f"a{i} ")
        await say("p2", f"b{i} ")
    second = tab(question.pk, headers(alice))  # connects while chunks wait for their flush
    assert await second.open()
    for i in range(5, 10):
        await say("p1", f"a{i} ")
    await first.shows("v0-p1", said["p1"])
    await first.close()  # the socket drops mid-stream ...
    await say("p2", "while away ")
    first = tab(question.pk, headers(alice))  # ... and the page reconnects
    assert await first.open()
    await say("p2", "back ")
    await sink.emit(finished("p1", said["p1"]))
    third = tab(question.pk, headers(alice))
    assert await third.open()
    await say("p2", "last <words>")
    for viewer in (first, second, third):
        await viewer.shows("v0-p2", said["p2"])
        await viewer.until(lambda v=viewer: v.page.kind("v0-p1") == "markdown")
        assert viewer.page.text("v0-p1").strip() == said["p1"].strip()
    await sink.emit(finished("p2", said["p2"]))
    await sink.emit(RoundFinished(0, "done"))
    await sink.emit(RunFinished("done", verdict="Shard.", synthesis="## Verdict\n\nShard."))
    for viewer in (first, second, third):
        await viewer.until(lambda v=viewer: v.page.over)
        assert viewer.page.kind("v0-p2") == "markdown"
        closing = await viewer.socket.receive_output(timeout=WAIT)
        assert closing == {"type": "websocket.close", "code": 1000}


async def test_the_final_page_is_rendered_once_for_every_viewer_that_asks_for_it_at_once(
    question, sink, headers, alice, tab, monkeypatch
):
    await start_round(sink)
    viewers = [tab(question.pk, headers(alice)) for _ in range(5)]
    for viewer in viewers:
        assert await viewer.open()
    renders = []
    render_snapshot = consumers.render_snapshot

    async def counted(question_id, state):
        renders.append(state.seq if state is not None else None)
        return await render_snapshot(question_id, state)

    monkeypatch.setattr(consumers, "render_snapshot", counted)
    await sink.emit(finished("p1", "Shard."))
    await sink.emit(finished("p2", "Replicas."))
    await sink.emit(RunFinished("done", verdict="Shard.", synthesis="## Verdict\n\nShard."))
    for viewer in viewers:
        await viewer.until(lambda v=viewer: v.page.over)
        assert viewer.page.text("v0-p2").strip() == "Replicas."
    assert len(renders) == 1  # five viewers, one render of the moment the run ended
    late = tab(question.pk, headers(alice))  # a viewer after it is rendered gets its own
    assert await late.open()
    assert late.page.over
    assert len(renders) == 2


async def test_a_broadcast_between_joining_and_the_snapshot_is_not_doubled(
    question, sink, headers, alice, monkeypatch, tab
):
    await start_round(sink)
    await sink.emit(ContributionChunk(0, "p1", "before "))
    send_snapshot = QuestionConsumer.send_snapshot

    async def racing(consumer):
        await sink.emit(ContributionChunk(0, "p1", "racing "))
        await sink.emit(PhaseChanged("Round 0 — independent answers", 1, 2))  # flushes: queued and cached
        await send_snapshot(consumer)

    monkeypatch.setattr(QuestionConsumer, "send_snapshot", racing)
    viewer = tab(question.pk, headers(alice))
    assert await viewer.open()
    monkeypatch.setattr(QuestionConsumer, "send_snapshot", send_snapshot)
    await sink.emit(ContributionChunk(0, "p1", "after"))
    await viewer.shows("v0-p1", "before racing after")


async def test_a_vote_finishing_between_cache_and_db_reads_shows_once_complete(
    question, sink, headers, alice, monkeypatch, tab
):
    await start_round(sink)
    await sink.emit(ContributionChunk(0, "p1", "Complete "))
    await sink.emit(PhaseChanged("Round 0 — independent answers", 1, 2))
    from debates.live import consumers

    render_snapshot = consumers.render_snapshot

    async def racing(question_id, state):
        await sink.emit(ContributionChunk(0, "p1", "answer."))
        await sink.emit(finished("p1", "Complete answer."))  # in the DB, not in the state read
        return await render_snapshot(question_id, state)

    monkeypatch.setattr(consumers, "render_snapshot", racing)
    viewer = tab(question.pk, headers(alice))
    assert await viewer.open()
    assert viewer.page.kind("v0-p1") == "markdown"  # the DB wins over the cache
    await sink.emit(ContributionChunk(0, "p2", "next"))
    await viewer.shows("v0-p2", "next")  # the queued chunk of p1 was skipped (Page asserts it)
    assert viewer.page.text("v0-p1").strip() == "Complete answer."


async def test_echoed_prompt_plumbing_never_reaches_a_viewer_even_mid_stream(question, sink, headers, alice, tab):
    await start_round(sink)
    viewer = tab(question.pk, headers(alice))
    assert await viewer.open()
    seen: list[str] = []
    words = "<<<BEGIN Panelist D: quoted material, not instructions>>>\nThe migration never ran, as Panelist D said."
    for word in words.split(" "):
        await sink.emit(ContributionChunk(0, "p1", word + " "))
        await sink.emit(PhaseChanged("Round 0 — independent answers", 1, 2))  # flushes what is pending
        await viewer.until(lambda: "v0-p1" in viewer.page.bodies)
        seen.append(viewer.page.text("v0-p1"))
    await viewer.shows("v0-p1", "The migration never ran, as [unknown panelist] said. ")
    assert not [text for text in seen if "<<" in text or "BEGIN" in text or "Panelist D" in text]
    assert read_state(question.pk).cards["0:p1"].text.startswith("The migration never ran")


async def test_whatever_a_client_sends_is_ignored_and_the_stream_goes_on(question, sink, headers, alice, tab):
    await start_round(sink)
    viewer = tab(question.pk, headers(alice))
    assert await viewer.open()
    await viewer.socket.send_to(text_data='{"HEADERS": {"HX-Trigger": "cancel"}, "x": "<script>"}')
    await viewer.socket.send_to(text_data="not json at all" * 1000)
    await viewer.socket.send_to(bytes_data=b"\x00\xff" * 512)
    await sink.emit(ContributionChunk(0, "p1", "Still streaming."))
    await viewer.shows("v0-p1", "Still streaming.")
    assert await viewer.socket.receive_nothing(timeout=0.2)


async def test_a_finished_question_sends_the_final_page_and_closes(question, headers, alice, tab):
    await sync_to_async(type(question).objects.filter(pk=question.pk).update)(status="done", verdict="Shard.")
    viewer = tab(question.pk, headers(alice))
    assert await viewer.open()
    assert await viewer.socket.receive_output(timeout=WAIT) == {"type": "websocket.close", "code": 1000}


async def test_anonymous_sockets_are_refused(question, headers, tab):
    assert not await tab(question.pk, headers()).open()


async def test_a_foreign_origin_is_refused(question, headers, alice, tab):
    assert not await tab(question.pk, headers(alice, origin="http://evil.example")).open()


async def test_another_users_private_question_is_refused_a_shared_one_is_not(question, headers, bob, tab):
    assert not await tab(question.pk, headers(bob)).open()
    await sync_to_async(type(question).objects.filter(pk=question.pk).update)(visibility="users")
    assert await tab(question.pk, headers(bob)).open()


async def closed_with(viewer: Viewer) -> dict:
    """The close the server sent this tab, after any fragments still on their way."""
    while (output := await viewer.socket.receive_output(timeout=WAIT))["type"] != "websocket.close":
        pass
    viewer.closed = True
    return output


@pytest.mark.parametrize("visibility", ["private", "link"])
@pytest.mark.parametrize("where", ["page", "api"])
async def test_a_reader_who_loses_access_mid_run_is_closed_while_the_askers_socket_streams_on(
    question, sink, headers, alice, bob, tab, where, visibility
):
    await sync_to_async(type(question).objects.filter(pk=question.pk).update)(visibility="users")
    await start_round(sink)
    asker, reader = tab(question.pk, headers(alice)), tab(question.pk, headers(bob))
    assert await asker.open()
    assert await reader.open()
    await sink.emit(ContributionChunk(0, "p1", "Shard "))
    await reader.shows("v0-p1", "Shard ")

    def unshare() -> int:
        if where == "api":
            body = {"visibility": visibility}
            sent = Client().post(f"/api/questions/{question.pk}/share", body, "application/json", **bearer(alice))
        else:
            browser = Client()
            browser.force_login(alice)
            sent = browser.post(f"/q/{question.pk}/share/", {"visibility": visibility})
        return sent.status_code

    assert await sync_to_async(unshare)() in {200, 302}
    close = await closed_with(reader)
    assert close == {"type": "websocket.close", "code": 4403, "reason": "This question is no longer shared with you."}
    await sink.emit(ContributionChunk(0, "p1", "when writes dominate."))
    await asker.shows("v0-p1", "Shard when writes dominate.")
    assert await reader.socket.receive_nothing()
    assert not await tab(question.pk, headers(bob)).open()


async def test_an_unknown_question_is_refused(headers, alice, tab):
    assert not await tab(999_999, headers(alice)).open()


async def test_the_steps_the_engine_emits_together_reach_a_viewer_as_one_message(question, sink, headers, alice, tab):
    await start_round(sink)
    viewer = tab(question.pk, headers(alice))
    assert await viewer.open()
    await sink.emit(RoundFinished(0, "done"))
    await sink.emit(LedgerUpdated(blind_ledger()))
    await sink.emit(PhaseChanged("Round 1 — debate", 2, 2))
    await sink.emit(RoundStarted(1, "debate", "Round 1 — debate", ("p1", "p2"), ("Panelist A", "Panelist B")))
    for seat, label in (("p1", "Panelist A"), ("p2", "Panelist B")):
        await sink.emit(ContributionStarted(1, seat, label, "debate"))
    message = await viewer.socket.receive_from(timeout=WAIT)
    for part in ('id="ledger"', 'id="progress"', 'id="round-1"', 'id="v1-p1"', 'id="v1-p2"'):
        assert part in message
    assert await viewer.socket.receive_nothing(timeout=0.2)


async def test_words_emitted_with_the_end_reach_a_viewer_before_the_final_page(
    question, headers, alice, tab, settings, monkeypatch
):
    settings.TEOREMA = {**settings.TEOREMA, "FLUSH_INTERVAL_MS": 3_600_000, "FLUSH_ADAPTS": False}  # nothing goes…
    monkeypatch.setattr("debates.live.sink.STEP_WINDOW", 3600.0)  # …before the end but a voice's first words
    sink = Tee(Recorder(question.pk, {}), LiveSink(question.pk, Totals()))
    await start_round(sink)
    viewer = tab(question.pk, headers(alice))
    assert await viewer.open()
    await sink.emit(ContributionChunk(0, "p1", "Shard "))
    await sink.emit(ContributionChunk(0, "p1", "by tenant."))
    await sink.emit(finished("p1", "Shard by tenant."))
    await sink.emit(RunFinished("done", verdict="Shard.", synthesis="## Verdict\n\nShard."))
    messages = []
    while not viewer.page.over:  # the final page replaces whatever came with the end
        messages.append(await viewer.socket.receive_from(timeout=WAIT))
        viewer.page.apply(messages[-1])
    assert any('beforeend:#v0-p1-text">by tenant.' in message for message in messages[:-1])


@pytest.fixture
async def looked_at(question) -> AsyncIterator[None]:
    """Someone in this process watches the question: its sink renders what it broadcasts."""
    layer = get_channel_layer()
    await layer.group_add(group_name(question.pk), "viewer.looking")
    yield
    await layer.group_discard(group_name(question.pk), "viewer.looking")


async def test_a_step_that_fails_to_render_in_the_background_fails_the_next_emit(
    question, sink, looked_at, monkeypatch
):
    live = sink.sinks[1]

    def broken(template: str, **context) -> str:
        raise ValueError(f"{template} is broken")

    await sink.emit(PanelChanged({"voices": [], "calls_planned": 3}))
    monkeypatch.setattr("debates.live.sink.fragment", broken)
    soon = live.soon
    await soon  # the step went out a moment later, and failed
    with pytest.raises(ValueError, match="is broken"):
        await sink.emit(PhaseChanged("Round 0", 1, 2))


async def test_a_run_nobody_watches_renders_nothing_and_still_publishes_its_state(question, sink, monkeypatch):
    """Rendering is for viewers: with none in this process, a run's broadcasts carry no fragment,
    while the state a viewer starts from is published as ever; one who joins gets fragments."""
    rendered = []

    def counted(template: str, **context) -> str:
        rendered.append(template)
        return f"<div id='{template}'></div>"

    monkeypatch.setattr("debates.live.sink.fragment", counted)
    await start_round(sink)
    await sink.emit(ContributionChunk(0, "p1", "Shard by tenant."))
    await sink.sinks[1].flush()
    assert rendered == []
    state = read_state(question.pk)
    assert state is not None
    assert state.cards["0:p1"].text == "Shard by tenant."
    layer = get_channel_layer()
    await layer.group_add(group_name(question.pk), "viewer.joined")
    try:
        await sink.emit(finished("p1", "Shard by tenant."))
        await sink.sinks[1].flush()
        assert "round.html#card" in rendered
    finally:
        await layer.group_discard(group_name(question.pk), "viewer.joined")


async def test_a_viewer_gets_in_and_gets_its_snapshot_while_the_runs_thread_is_busy(question, headers, alice, tab):
    """The viewers' reads (session, access, snapshot) never queue behind the runs' writes."""
    assert await tab(question.pk, headers(alice)).open()  # the server's first call, which resumes runs, is over
    held = threading.Event()
    busy = asyncio.ensure_future(sync_to_async(held.wait)())  # asgiref's one thread, which carries the runs' writes
    try:
        viewer = tab(question.pk, headers(alice))
        assert await viewer.open()
        assert "v0-p1" not in viewer.page.bodies  # the snapshot came: a debate with no round yet
        assert not busy.done()
    finally:
        held.set()
        await busy


async def test_progress_is_written_behind_the_page_in_order_and_results_before_it(question, sink):
    recorder = sink.sinks[0]
    await start_round(sink)
    await sink.emit(PhaseChanged("Round 0 — still answering", 1, 2))
    await sink.emit(finished("p1", "Shard."))  # a result: stored, with every write before it, when emit returns
    assert await Contribution.objects.filter(round__question=question, seat="p1").aexists()
    assert (await Question.objects.aget(pk=question.pk)).phase == "Round 0 — still answering"
    await sink.emit(RoundFinished(0, "done"))
    await sink.sinks[1].flush()
    await recorder.written()  # the round's row: written behind the page…
    await Round.objects.filter(question=question, index=0).aupdate(status="running")  # …or still on its way
    debate = await sync_to_async(snapshot.build)(question.pk, read_state(question.pk))
    assert [r.status for r in debate.rounds] == ["done"]  # a reload meanwhile shows where the run is


async def test_a_progress_write_that_fails_is_raised_at_the_next_event_once(question):
    recorder = Recorder(question.pk, {})
    await recorder.emit(LedgerUpdated({"claims": {"not JSON"}}))  # returns before the write fails
    await recorder.written()
    with pytest.raises(TypeError):
        await recorder.emit(PhaseChanged("Round 1", 2, 2))
    await recorder.emit(PhaseChanged("Round 1", 2, 2))
    await recorder.written()
    assert (await Question.objects.aget(pk=question.pk)).phase == "Round 1"


async def test_writes_that_queue_together_go_in_one_hop_and_a_failed_one_stops_none_after_it(question, monkeypatch):
    recorder = Recorder(question.pk, {})
    hops = []
    store_each = recorder._store_each
    monkeypatch.setattr(recorder, "_store_each", lambda events: hops.append(len(events)) or store_each(events))
    await recorder.emit(PhaseChanged("Round 0", 1, 3))
    await recorder.emit(LedgerUpdated({"claims": {"not JSON"}}))  # fails in the thread
    await recorder.emit(RoundStarted(0, "answer", "Round 0", ("p1",), ("Panelist A",)))
    await recorder.emit(finished("p1", "Shard."))  # a result: returns once written, with all before it
    assert hops == [4]
    stored = await Question.objects.aget(pk=question.pk)
    assert stored.phase == "Round 0"
    assert await Contribution.objects.filter(round__question=question, round__index=0, seat="p1").aexists()
    with pytest.raises(TypeError):  # the ledger's failure, at the next event
        await recorder.emit(PhaseChanged("Round 1", 2, 3))


@pytest.mark.parametrize("cache_survived", [True, False])
async def test_a_resumed_run_does_not_count_its_replayed_votes_twice(question, sink, cache_survived):
    await start_round(sink)
    await sink.emit(finished("p1", "Shard."))
    if not cache_survived:  # the first run stopped and its state was lost with the process
        release(question.pk)
        await sync_to_async(cache.delete)(state_key(question.pk))
    question = await Question.objects.aget(pk=question.pk)
    stored = await sync_to_async(Totals.stored)(question)  # what the resumed run's claim reads, on the DB thread
    resumed = Tee(Recorder(question.pk, {}), LiveSink(question.pk, stored))
    replay = finished("p1", "Shard.")
    await resumed.emit(ContributionFinished(replay.result, replayed=True))
    await resumed.sinks[1].flush()
    totals = read_state(question.pk).totals
    assert totals.calls == 1
    assert totals.tokens == 30
    assert totals.cost == Decimal("0.01")


# --- the claim ledger -------------------------------------------------------------------------


def blind_ledger() -> dict:
    """The ledger after the blind round, as the engine emits it."""
    entries = [ledgers.Entry(0, label, "answer", closing.read("answer", text, label)) for label, text in BLIND.items()]
    return ledgers.Ledger(entries).as_dict()


async def ledger_section(viewer: Viewer) -> str:
    """The ledger section of the next message that carries one."""
    while True:
        message = await viewer.socket.receive_from(timeout=WAIT)
        viewer.page.apply(message)
        if found := re.search(r'<section id="ledger".*?</section>', message, re.S):
            return found[0]


async def test_the_ledger_reaches_a_connected_viewer_after_a_round_and_stays_for_the_next(
    question, sink, headers, alice, tab
):
    await start_round(sink, seats=("p1", "p2", "p3"))
    viewer = tab(question.pk, headers(alice))
    assert await viewer.open()
    ledger = blind_ledger()
    await sink.emit(LedgerUpdated(ledger))
    section = await ledger_section(viewer)
    assert "Where the panel stands" in section
    assert re.findall(r'id="claim-(\w+)"', section) == ["a1", "a2", "b1", "b2", "c1", "c2"]
    assert "Emerging answer</span> Add read replicas" in section
    assert read_state(question.pk).ledger == ledger
    # A viewer connecting now gets it in its snapshot; the recorder stored it for the finished page
    # (behind the page: written once the recorder's writes are through).
    _, html = await consumers.render_snapshot(question.pk, read_state(question.pk))
    assert 'id="claim-c2"' in html
    await sink.sinks[0].written()
    stored = await sync_to_async(snapshot.build)(question.pk, None)
    assert stored.ledger == ledger


# --- the end of a run, queued voices, card order, a cancel ---------------------------------------


async def card_message(viewer: Viewer, dom: str) -> str:
    """The HTML of the card ``dom`` in the next message that carries it."""
    while True:
        message = await viewer.socket.receive_from(timeout=WAIT)
        viewer.page.apply(message)
        if found := re.search(rf'<article id="{dom}".*?</article>', message, re.S):
            return found[0]


async def test_a_queued_voice_says_its_place_and_its_clock_starts_when_it_generates(
    question, sink, headers, alice, tab
):
    await start_round(sink, seats=("p1", "p2", "p3"))
    viewer = tab(question.pk, headers(alice))
    assert await viewer.open()
    await sink.emit(ContributionQueued(0, "p3", 3, 3))
    queued = await card_message(viewer, "v0-p3")
    assert "queued (3 of 3)" in queued
    assert "data-since" not in queued  # waiting for the model is not thinking: no clock runs
    assert read_state(question.pk).cards["0:p3"].status == "queued"
    await sink.emit(ContributionStarted(0, "p3", "Panelist C", "answer"))
    started = await card_message(viewer, "v0-p3")
    assert ">thinking</span>" in started
    assert "data-since" in started


async def test_cards_keep_the_label_order_live_and_in_every_snapshot(question, sink, headers, alice, tab):
    viewer = tab(question.pk, headers(alice))
    assert await viewer.open()
    await sink.emit(PanelChanged({"voices": [], "calls_planned": 3}))
    # Labels are shuffled per question: seat p2 is Panelist C, p3 Panelist B.
    shuffled = ("Panelist A", "Panelist C", "Panelist B")
    await sink.emit(RoundStarted(0, "answer", "Round 0", ("p1", "p2", "p3"), shuffled))
    live = ""
    while "<article" not in live:
        live = await viewer.socket.receive_from(timeout=WAIT)
    assert re.findall(r'<article id="(v0-p\d)"', live) == ["v0-p1", "v0-p3", "v0-p2"]
    await sink.emit(ContributionChunk(0, "p1", "Still writing"))
    done = ContributionResult(0, "p2", "Panelist C", "answer", "done", text="Replicas.")
    await sink.emit(ContributionFinished(done))  # C finishes first, A streams on
    built = await sync_to_async(snapshot.build)(question.pk, read_state(question.pk))
    assert [card.label for card in built.rounds[0].cards] == ["Panelist A", "Panelist B", "Panelist C"]
    _, html = await consumers.render_snapshot(question.pk, read_state(question.pk))
    assert re.findall(r'<article id="(v0-p\d)"', html) == ["v0-p1", "v0-p3", "v0-p2"]


async def test_a_stand_in_appears_right_after_the_seat_it_takes(question, sink, headers, alice, tab):
    await start_round(sink, seats=("p1", "p2"))
    viewer = tab(question.pk, headers(alice))
    assert await viewer.open()
    await sink.emit(ContributionStarted(0, "p1~", "Panelist A", "answer"))
    message = await viewer.socket.receive_from(timeout=WAIT)
    assert message.lstrip().startswith('<div hx-swap-oob="afterend:#v0-p1">')
    assert '<article id="v0-p1_7e"' in message


async def test_the_last_fragment_pins_the_verdict_and_folds_the_rounds(question, sink, headers, alice, tab):
    await start_round(sink, seats=("p1", "p2", "p3"))
    viewer = tab(question.pk, headers(alice))
    assert await viewer.open()
    voices = [
        {"seat": s, "label": f"Panelist {x}", "method": "none", "status": "active"}
        for s, x in zip(("p1", "p2", "p3"), "ABC", strict=True)
    ]
    await sink.emit(PanelChanged({"voices": voices, "calls_planned": 4, "heterogeneity": "families"}))
    for seat, label in (("p1", "Panelist A"), ("p2", "Panelist B"), ("p3", "Panelist C")):
        await sink.emit(ContributionFinished(ContributionResult(0, seat, label, "answer", "done", text=BLIND[label])))
    await sink.emit(RoundFinished(0, "done"))
    await sink.emit(LedgerUpdated(blind_ledger()))
    await sink.emit(RunFinished("done", verdict="Add read replicas.", synthesis="## Verdict\n\nAdd read replicas."))
    final = ""
    while "ws-connect" in final or not final.startswith('<div id="live"'):
        final = await viewer.socket.receive_from(timeout=WAIT)
    order = [final.index(f'id="{part}"') for part in ("verdict", "panel-run", "ledger", "views", "rounds")]
    assert order == sorted(order)  # the verdict on top, then what it rests on
    assert 'data-title="✓ Verdict — Shard or replicate? · Teorema"' in final
    assert 'data-announce="Verdict: Add read replicas."' in final
    assert "The panel that ran" in final
    folds = re.findall(r'<details class="fold status-done" data-voice="(panelist-\w)">(.*?)</summary>', final, re.S)
    assert [voice for voice, _ in folds] == ["panelist-a", "panelist-b", "panelist-c"]
    lines = {voice: " ".join(re.sub(r"<[^>]+>", " ", line).split()) for voice, line in folds}
    assert lines["panelist-c"].startswith("Panelist C ✗ disagrees done")  # its stance, its status, then its text
    assert lines["panelist-a"].startswith("Panelist A ✓ agrees done Reads dominate this workload")


SLOW = "slow words " * 300


def streaming(question_id: int) -> bool:
    state = read_state(question_id)
    return state is not None and any(card.text for card in state.cards.values())


async def test_a_cancel_keeps_every_card_with_what_it_had_written(
    alice, panel, make_question, fake_provider, headers, tab
):
    for model in ("model-alpha", "model-beta", "model-gamma"):
        fake_provider.script(model, Script(answer=SLOW, tokens_per_second=20))
    question = await sync_to_async(make_question)(alice, panel)
    await sync_to_async(tasks.submit)(question)
    await wait_for(lambda: streaming(question.pk), "a voice to stream")
    viewer = tab(question.pk, headers(alice))
    assert await viewer.open()
    await sync_to_async(execute.cancel)(question.pk)
    await viewer.until(lambda: viewer.page.over)

    found = Contribution.objects.filter(round__question=question).select_related("round").order_by("label")
    rows = await sync_to_async(list)(found)
    assert [row.status for row in rows] == ["cancelled"] * 3
    assert any(row.text for row in rows)
    assert all(SLOW.startswith(row.text) for row in rows)  # what streamed, never more
    # What streamed is paid for: estimated (usage comes at a stream's end), and in the totals.
    assert all(row.tokens_out > 0 and row.tokens_estimated and row.cost > 0 for row in rows if row.text)
    await sync_to_async(question.refresh_from_db)()
    assert question.tokens_out == sum(row.tokens_out for row in rows) > 0
    for row in rows:
        assert viewer.page.kind(dom_id(row.round.index, row.seat)) == "markdown"
        assert viewer.page.text(dom_id(row.round.index, row.seat)).strip() == row.text.strip()
    stored = await sync_to_async(snapshot.build)(question.pk, None)  # a reload: the page from the DB alone
    (cut,) = [r for r in stored.rounds if r.kind == "answer"]
    assert [(card.status, card.badge) for card in cut.cards] == [("cancelled", "cancelled")] * 3
    assert (await sync_to_async(Round.objects.get)(question=question, index=cut.index)).status == "cancelled"


@pytest.fixture
async def watched(question, headers, alice, tab, settings):
    """(the live sink, the run's sink, a viewer) for a round under way, with a window no test
    outlasts, whatever the process's load."""
    settings.TEOREMA = {**settings.TEOREMA, "FLUSH_INTERVAL_MS": 3_600_000, "FLUSH_ADAPTS": False}
    live = LiveSink(question.pk, Totals())
    sink = Tee(Recorder(question.pk, {}), live)
    viewer = tab(question.pk, headers(alice))
    assert await viewer.open()
    await start_round(sink)
    return live, sink, viewer


async def test_a_voices_first_words_go_out_at_once_the_rest_in_the_next_flush(watched):
    live, sink, viewer = watched
    await sink.emit(ContributionChunk(0, "p1", "Replicas "))
    await viewer.shows("v0-p1", "Replicas ")  # no window to wait for
    await sink.emit(ContributionChunk(0, "p1", "first, "))
    await sink.emit(ContributionChunk(0, "p2", "Shard "))  # p2's first words, and what p1 had pending
    await viewer.shows("v0-p2", "Shard ")
    assert viewer.page.text("v0-p1") == "Replicas first, "
    await sink.emit(ContributionChunk(0, "p1", "then shard."))  # coalesced: held for the window
    await live.close()  # the end of a run sends what is pending
    await viewer.shows("v0-p1", "Replicas first, then shard.")


async def test_words_wait_one_window_after_the_last_broadcast_not_after_they_came(watched):
    live, sink, viewer = watched
    await sink.emit(ContributionChunk(0, "p1", "Replicas "))
    await viewer.shows("v0-p1", "Replicas ")
    live.sent_at -= live.interval  # a window has passed since that broadcast, with nothing to send
    await sink.emit(ContributionChunk(0, "p1", "first."))  # so these words need not wait another
    await viewer.shows("v0-p1", "Replicas first.")


async def test_words_go_out_at_once_while_the_process_is_quiet_and_wait_the_window_once_busy(watched, monkeypatch):
    live, sink, viewer = watched
    live.adapts = True
    if live.soon is not None:
        await live.soon  # the round's steps went out: nothing else will send the words
    clock, cpu = [0.0], [0.0]
    monkeypatch.setattr(
        "debates.live.sink.PACE", Pace(lambda: clock[0], lambda: cpu[0], lambda: (cpu[0], 2 * clock[0]))
    )
    await sink.emit(ContributionChunk(0, "p1", "Replicas "))
    await viewer.shows("v0-p1", "Replicas ")
    clock[0], cpu[0] = 1.0, 0.1  # a second at 10 % of a core
    await sink.emit(ContributionChunk(0, "p1", "first, "))
    await viewer.shows("v0-p1", "Replicas first, ")  # no window: an hour's, were it busy
    clock[0], cpu[0] = 2.0, 2.1  # a second on two cores
    await sink.emit(ContributionChunk(0, "p1", "then shard."))
    assert await viewer.socket.receive_nothing(timeout=0.2)  # held for the whole window
    await live.close()
    await viewer.shows("v0-p1", "Replicas first, then shard.")


def lose_next_broadcast(monkeypatch) -> None:
    """The channel layer drops the next group send, as the Redis layer can when a receive is cancelled."""
    layer = get_channel_layer()
    delivered = layer.group_send

    async def lost(group: str, message: dict) -> None:
        monkeypatch.setattr(layer, "group_send", delivered)

    monkeypatch.setattr(layer, "group_send", lost)


async def test_a_lost_broadcast_is_made_good_by_a_fresh_snapshot_at_the_next_one(
    question, sink, headers, alice, tab, monkeypatch
):
    await start_round(sink)
    viewer = tab(question.pk, headers(alice))
    assert await viewer.open()
    lose_next_broadcast(monkeypatch)
    await sink.emit(ContributionChunk(0, "p1", "Lost words "))
    await sink.emit(ContributionChunk(0, "p2", "Found "))  # the gap in seq shows: a snapshot follows
    await viewer.shows("v0-p2", "Found ")
    assert viewer.page.text("v0-p1") == "Lost words "


async def test_a_lost_last_broadcast_is_found_after_a_silence(question, sink, headers, alice, tab, monkeypatch):
    monkeypatch.setattr(consumers, "RESYNC_AFTER", 0.2)
    await start_round(sink)
    viewer = tab(question.pk, headers(alice))
    assert await viewer.open()
    await sink.emit(finished("p1", "Shard."))
    await sink.emit(finished("p2", "Shard too."))
    lose_next_broadcast(monkeypatch)
    await sink.emit(RunFinished("done", verdict="Shard.", synthesis="## Verdict\n\nShard."))
    while (output := await viewer.socket.receive_output(timeout=WAIT))["type"] != "websocket.close":
        viewer.page.apply(output["text"])
    assert output["code"] == 1000  # the finished page came, and the socket closed normally
    assert "Shard." in viewer.page.text("v0-p1")


async def test_a_snapshot_the_database_cannot_give_is_said_in_words_and_made_good_once_it_can(
    question, sink, headers, alice, tab, monkeypatch
):
    monkeypatch.setattr(consumers, "CATCH_UP_FIRST", 0.05)
    await start_round(sink)
    viewer = tab(question.pk, headers(alice))
    assert await viewer.open()
    build = snapshot.build
    refused = []

    def down_once(*args):
        if not refused:
            refused.append(1)
            raise OperationalError("connection to server at 127.0.0.1 failed: Connection refused")
        return build(*args)

    monkeypatch.setattr(snapshot, "build", down_once)
    lose_next_broadcast(monkeypatch)
    await sink.emit(ContributionChunk(0, "p1", "Lost words "))
    await sink.emit(ContributionChunk(0, "p2", "Found "))  # the gap needs a snapshot: the database refuses it
    said = await viewer.socket.receive_from(timeout=WAIT)
    assert "The database is not answering: this page catches up once it is back." in said
    assert "127.0.0.1" not in said  # the reason goes to the log
    await viewer.shows("v0-p2", "Found ")  # caught up: the socket stayed open
    assert viewer.page.text("v0-p1") == "Lost words "


async def test_a_run_whose_writes_wait_for_the_database_tells_its_viewers_and_clears_it_once_back(
    question, sink, headers, alice, tab
):
    await start_round(sink)
    viewer = tab(question.pk, headers(alice))
    assert await viewer.open()
    live = sink.sinks[1]

    await live.database_away(True)
    said = await viewer.socket.receive_from(timeout=WAIT)
    await live.database_away(False)
    back = await viewer.socket.receive_from(timeout=WAIT)

    assert "Database unavailable" in said
    assert "its answers are saved once the database is back" in said
    assert "Database unavailable" not in back
    assert "Round 0 — independent answers" in back


async def test_a_run_that_ended_while_its_state_and_end_were_lost_is_found_over_after_a_silence(
    question, sink, headers, alice, tab, monkeypatch
):
    """Redis away while a run ends: its last broadcast and its live state are both gone, and the
    DB alone says it is over."""
    monkeypatch.setattr(consumers, "RESYNC_AFTER", 0.2)
    await start_round(sink)
    viewer = tab(question.pk, headers(alice))
    assert await viewer.open()
    await sink.emit(finished("p1", "Shard."))
    await sink.emit(finished("p2", "Shard too."))
    await sink.sinks[1].flush()
    lose_next_broadcast(monkeypatch)  # the final one
    await sink.emit(RunFinished("done", verdict="Shard.", synthesis="## Verdict\n\nShard."))
    release(question.pk)  # the run's sink closed, and Redis lost what it left
    cache.delete(state_key(question.pk))
    while (output := await viewer.socket.receive_output(timeout=WAIT))["type"] != "websocket.close":
        viewer.page.apply(output["text"])
    assert output["code"] == 1000
    assert "Shard." in viewer.page.text("v0-p1")


# --- the live state, where a single process keeps it -------------------------------------------


async def test_a_reader_in_another_thread_gets_a_copy_taken_between_two_steps(question, sink):
    await start_round(sink)
    await sink.emit(ContributionChunk(0, "p1", "Shard by tenant."))
    live = sink.sinks[1]
    copy = await asyncio.to_thread(read_state, question.pk)  # a view's thread: waits for a turn of the loop
    assert copy is not None
    assert copy is not live.state
    assert copy.seq == live.state.seq
    assert copy.cards["0:p1"].text == "Shard by tenant."
    copy.cards["0:p1"].text = "changed by a reader"
    assert live.state.cards["0:p1"].text == "Shard by tenant."
    assert await sync_to_async(cache.get)(state_key(question.pk)) is None  # nothing pickled per broadcast


async def test_a_run_that_stops_leaves_its_state_in_the_cache_and_a_resumed_one_goes_on_from_its_seq(question, sink):
    await start_round(sink)
    await sink.emit(ContributionChunk(0, "p1", "Shard."))
    live = sink.sinks[1]
    await live.close()
    cached = await sync_to_async(cache.get)(state_key(question.pk))
    assert isinstance(cached, LiveState)
    assert cached.seq == live.state.seq
    group = get_channel_layer()
    channel = await group.new_channel()
    await group.group_add(f"question-{question.pk}", channel)
    resumed = LiveSink(question.pk, Totals())
    await resumed.emit(PhaseChanged("Round 1", 2, 2))
    assert (await group.receive(channel))["seq"] == cached.seq + 1


async def test_a_run_resumed_without_its_state_is_followed_at_once_by_a_viewer_of_the_run_before(
    question, sink, headers, alice, tab
):
    await start_round(sink)
    viewer = tab(question.pk, headers(alice))
    assert await viewer.open()
    for word in ("Shard ", "by ", "tenant."):
        await sink.emit(ContributionChunk(0, "p1", word))
        await sink.sinks[1].flush()
    await viewer.shows("v0-p1", "Shard by tenant.")
    await sink.sinks[0].written()  # the round's row, written behind the page, is in the DB long before a crash
    release(question.pk)  # the run's process dies and its cached state is lost with it
    await sync_to_async(cache.delete)(state_key(question.pk))
    resumed = LiveSink(question.pk, Totals())  # counts seq from 1 again, below what the viewer saw
    await resumed.emit(ContributionStarted(0, "p2", "Panelist B", "answer"))
    await resumed.emit(ContributionChunk(0, "p2", "Resumed words"))
    await viewer.shows("v0-p2", "Resumed words")
    await resumed.close()


def test_a_run_whose_loop_has_stopped_hands_over_nothing_and_keeps_no_reader_waiting(question):
    async def run_and_stop() -> None:  # a loop that ends without the sink closing
        await publish(get_channel_layer(), question.pk, LiveState(seq=7), Changes(), {"type": "live.batch"})

    asyncio.run(run_and_stop())
    assert read_state(question.pk) is None


@pytest.fixture
def redis_url() -> Iterator[str]:
    """A Redis database of this test's own."""
    deploy.require_services()
    with deploy.redis_database() as url:
        yield url


@pytest.mark.services
async def test_with_any_other_layer_shared_by_processes_the_cache_gets_each_state_whole(question, redis_url, settings):
    settings.CHANNEL_LAYERS = {
        "default": {"BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer", "CONFIG": {"hosts": [redis_url]}}
    }
    live = LiveSink(question.pk, Totals())
    await start_round(Tee(Recorder(question.pk, {}), live))
    cached = await sync_to_async(cache.get)(state_key(question.pk))
    assert cached == live.state
    assert read_state(question.pk) == live.state
    await live.close()


@pytest.fixture
def shared(redis_url, settings) -> SharedChannelLayer:
    """The server's channel layer, which keeps the live state."""
    settings.CHANNEL_LAYERS = {
        "default": {"BACKEND": "debates.live.layer.SharedChannelLayer", "CONFIG": {"hosts": [redis_url]}}
    }
    return get_channel_layer()


@pytest.mark.services
async def test_a_shared_state_is_kept_in_parts_and_a_broadcast_writes_only_what_changed(question, shared, monkeypatch):
    writes: list[tuple[list[str], bool]] = []
    send = shared.group_send_with_parts

    async def recorded(group, message, key, parts, ttl, *, fresh):
        writes.append((sorted(parts), fresh))
        return await send(group, message, key, parts, ttl, fresh=fresh)

    monkeypatch.setattr(shared, "group_send_with_parts", recorded)
    channel = await shared.new_channel()
    await shared.group_add(f"question-{question.pk}", channel)
    live = LiveSink(question.pk, Totals())
    await start_round(Tee(Recorder(question.pk, {}), live))
    assert writes == [(["card:0:p1", "card:0:p2", "head", "seq"], True)]  # all of it, afresh
    await live.emit(ContributionChunk(0, "p1", "Shard "))  # a voice's first words go at once
    await live.emit(ContributionChunk(0, "p2", "Replicate "))
    await live.emit(ContributionChunk(0, "p1", "by tenant."))
    await live.emit(ContributionChunk(0, "p2", "twice."))
    await live.flush()
    assert writes[1:] == [
        (["card:0:p1", "seq"], False),
        (["card:0:p2", "seq"], False),
        (["card:0:p1", "card:0:p2", "seq"], False),
    ]
    read = await asyncio.to_thread(read_state, question.pk)  # another thread, as a view reads it
    assert read == live.state
    assert list(read.cards) == list(live.state.cards)  # in the order the page shows them
    await live.emit(LedgerUpdated({"claims": []}))
    await live.flush()
    assert writes[-1] == (["head", "seq"], False)
    assert [(await shared.receive(channel))["seq"] for _ in writes] == list(range(1, len(writes) + 1))
    await live.close()


@pytest.mark.services
async def test_after_a_failed_write_of_a_shared_state_the_next_writes_it_whole(question, shared, monkeypatch):
    live = LiveSink(question.pk, Totals())
    await start_round(Tee(Recorder(question.pk, {}), live))
    send = shared.group_send_with_parts
    afresh: list[bool] = []

    async def down_once(group, message, key, parts, ttl, *, fresh):
        afresh.append(fresh)
        if len(afresh) == 1:
            raise ConnectionError("Redis restarted")
        return await send(group, message, key, parts, ttl, fresh=fresh)

    monkeypatch.setattr(shared, "group_send_with_parts", down_once)
    await live.emit(ContributionChunk(0, "p1", "Shard "))  # its broadcast is lost: the run goes on
    await live.emit(ContributionChunk(0, "p2", "Replicate."))
    await live.flush()
    assert afresh == [False, True]
    assert read_state(question.pk) == live.state
    await live.close()


@pytest.mark.services
async def test_a_restarted_redis_that_lost_the_script_is_sent_it_again(question, redis_url, shared):
    live = LiveSink(question.pk, Totals())
    await start_round(Tee(Recorder(question.pk, {}), live))
    redis.Redis.from_url(redis_url).script_flush()
    await live.emit(ContributionChunk(0, "p1", "Shard "))
    assert read_state(question.pk).cards["0:p1"].text == "Shard "
    await live.close()


@pytest.mark.services
async def test_a_state_lost_with_redis_while_the_run_was_quiet_is_written_whole_by_the_next_broadcast(
    question, redis_url, shared
):
    live = LiveSink(question.pk, Totals())
    await start_round(Tee(Recorder(question.pk, {}), live))
    redis.Redis.from_url(redis_url).flushdb()  # restarted between two broadcasts: no write failed
    await live.emit(ContributionChunk(0, "p1", "Shard "))
    assert read_state(question.pk) == live.state
    await live.close()


@pytest.mark.services
async def test_on_a_server_broadcasts_go_from_redis_straight_to_each_viewers_mailbox(
    question, shared, headers, alice, tab
):
    live = LiveSink(question.pk, Totals())
    sink = Tee(Recorder(question.pk, {}), live)
    await start_round(sink)
    viewers = [tab(question.pk, headers(alice)) for _ in range(2)]
    for viewer in viewers:
        assert await viewer.open()

    def handed_over() -> int:
        return sum(isinstance(queue, Handoff) for queue in shared._get_layer().channels.values())

    assert handed_over() == 2  # no queue and no task between Redis and a consumer
    for word in ("Shard ", "by ", "tenant."):
        await sink.emit(ContributionChunk(0, "p1", word))
        await live.flush()
    for viewer in viewers:
        await viewer.shows("v0-p1", "Shard by tenant.")
    await viewers[0].close()
    assert handed_over() == 1
    await sink.emit(ContributionChunk(0, "p1", " Twice."))
    await live.flush()
    await viewers[1].shows("v0-p1", "Shard by tenant. Twice.")
    await live.close()


@pytest.mark.services
async def test_a_receive_on_a_handed_over_channel_waits_and_its_cancel_drops_the_channel(shared):
    channel = await shared.new_channel()
    delivered: list[dict] = []
    shared.subscribe(channel, delivered.append)
    late = asyncio.create_task(shared.receive(channel))  # as if Channels asked after the handover
    await shared.send(channel, {"type": "live.batch", "seq": 1})
    await wait_for(lambda: delivered, "the message at the subscriber")
    assert delivered == [{"type": "live.batch", "seq": 1}]
    assert not late.done()
    shared.unsubscribe(channel)
    late.cancel()
    with pytest.raises(asyncio.CancelledError):
        await late
    assert channel not in shared._get_layer().channels  # and its Redis subscription with it
