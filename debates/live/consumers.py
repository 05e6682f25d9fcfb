"""One consumer: join the question's group, send a snapshot, then only the fragments after it.

The order is what makes the stream exact (docs/architecture.md): join the group first (so
broadcasts queue up), then read the live state, then the DB; forward only broadcasts whose seq is
above the snapshot's, and no streamed text of a card the snapshot already shows complete.
With our layers (live.layer), broadcasts come straight into the consumer's mailbox instead of
through its channel's queue, and are handled in the same order.
"""

import asyncio
import logging
from typing import Any, ClassVar

from asgiref.sync import async_to_sync
from autobahn.exception import Disconnected  # what Daphne raises on a send to a socket the client closed
from channels.consumer import get_handler_name
from channels.generic.websocket import AsyncWebsocketConsumer
from channels.layers import get_channel_layer
from django.template.loader import render_to_string

from debates.lib.unstored import unstored
from debates.live import snapshot
from debates.live.mailbox import Mailbox
from debates.live.state import LiveState, group_name, read_state
from debates.live.viewers import on_viewers_thread
from debates.models import Question

log = logging.getLogger(__name__)


@on_viewers_thread
def can_watch(question_id: int, user) -> bool:
    return Question.objects.visible_to(user).filter(pk=question_id).exists()


@on_viewers_thread
def render_snapshot(question_id: int, state: LiveState | None) -> tuple[snapshot.Debate, str]:
    """The debate region now; once the run is over, the whole page part without the socket."""
    debate = snapshot.build(question_id, state)
    template = "debates/partials/snapshot.html" if debate.live else "debates/partials/live.html"
    return debate, render_to_string(template, {"debate": debate, "swapped": True})


# (question, epoch, seq) -> the render of that moment under way, for every viewer that asks for it.
_rendering: dict[tuple[int, str, int], asyncio.Future[tuple[snapshot.Debate, str]]] = {}


async def shared_snapshot(question_id: int, state: LiveState | None) -> tuple[snapshot.Debate, str]:
    """``render_snapshot``, once for all the viewers that ask for the same moment at once.

    The page is the same for every viewer (no user in it), and when a run ends every viewer of it
    asks for the final page in the same instant: rendered per viewer, on the viewers' one thread,
    a thousand viewers waited a thousand renders. A viewer may take a render that started before
    it asked: that render read the DB after the live state it was keyed by, which is all a
    snapshot needs (the broadcasts after that seq follow it).
    """
    key = (question_id, state.epoch, state.seq) if state is not None else (question_id, "", 0)
    if (pending := _rendering.get(key)) is not None:
        return await asyncio.shield(pending)  # one viewer leaving does not cancel the others' render
    pending = asyncio.ensure_future(render_snapshot(question_id, state))
    _rendering[key] = pending
    pending.add_done_callback(lambda _: _rendering.pop(key, None))
    return await asyncio.shield(pending)


# Seconds a live viewer waits without a broadcast before it checks the live state for one it missed.
RESYNC_AFTER = 10.0
# Seconds before a viewer that could not follow a broadcast tries a snapshot again, doubling up to the last.
CATCH_UP_FIRST, CATCH_UP_LAST = 1.0, 8.0
CAUGHT_OUT = "This page lost track of the debate: it catches up in a moment."
# The close of a socket whose user may no longer read the question (as a 403; htmx does not reconnect).
REVOKED, REVOKED_REASON = 4403, "This question is no longer shared with you."


def recheck_viewers(question_id: int) -> None:
    """Who may read the question changed: every socket following it checks its user again, and
    one that may no longer read it is closed, mid-run too. A layer that fails is logged, not
    raised: the change itself is saved."""
    try:
        async_to_sync(get_channel_layer().group_send)(group_name(question_id), {"type": "live.recheck"})
    except Exception:
        log.exception("the viewers of question %s were not told that its sharing changed", question_id)


class QuestionConsumer(AsyncWebsocketConsumer):
    group = ""
    seq = 0
    epoch = ""  # the count seq belongs to; "" until a live state is seen
    complete: frozenset[str] = frozenset()
    heard = 0.0  # loop time of the last broadcast or snapshot
    watchdog: asyncio.Task | None = None
    mailbox: Mailbox[dict[str, Any]] | None = None  # broadcasts handed over by an in-process layer
    open: ClassVar[int] = 0  # sockets this process holds open now (debates.metrics)
    counted = False  # this one is in ``open``

    async def connect(self) -> None:
        self.question_id = self.scope["url_route"]["kwargs"]["pk"]
        if not await can_watch(self.question_id, self.scope["user"]):
            await self.close()  # before accept: the handshake is refused with a 403
            return
        self.group = group_name(self.question_id)
        await self.channel_layer.group_add(self.group, self.channel_name)
        snapshot_sent = asyncio.get_running_loop().create_future()
        if subscribe := getattr(self.channel_layer, "subscribe", None):
            self.mailbox = Mailbox(self.handle_broadcast, after=snapshot_sent)
            subscribe(self.channel_name, self.mailbox.put)
        await self.accept()
        self.counted = True
        QuestionConsumer.open += 1
        await self.send_snapshot()
        snapshot_sent.set_result(None)  # a mailbox's broadcasts that came meanwhile go now, after it

    async def dispatch(self, message: dict[str, Any]) -> None:
        """Every message straight to its handler.

        Channels first closes stale DB connections, a trip through asgiref's one shared thread
        that carries every run's writes: under load each fragment waited behind those writes,
        in order, per viewer. This consumer reads the DB only on the viewers' thread, which
        closes stale connections around each read.
        """
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        await handler(message)

    async def handle_broadcast(self, message: dict[str, Any]) -> None:
        """A broadcast from the mailbox, handled as Channels would; one that fails (its snapshot
        could not be read) is caught up with (``catch_up``)."""
        try:
            await self.dispatch(message)
        except Disconnected:
            pass  # the reader reloaded or left while a fragment was on its way: its disconnect follows
        except Exception as error:
            await self.catch_up(error)

    async def catch_up(self, error: Exception) -> None:
        """After a broadcast this viewer could not follow: tell the reader why, in words, and try a
        fresh snapshot again until one is sent. The broadcasts that come meanwhile wait in the
        mailbox; those the snapshot holds are then skipped.

        The socket stays open: Daphne refuses to close one with 1011, the code on which the page
        reconnects, and the close it refused left the viewer waiting for a run long over.
        """
        pause = CATCH_UP_FIRST
        while True:
            why = unstored(error)
            if why:  # the database: one line, not a traceback, for every viewer while it is down
                log.warning("live viewer of question %s waits for the database: %s", self.question_id, error)
            else:
                log.error("live viewer of question %s failed on a broadcast", self.question_id, exc_info=error)
            said = f"{why}: this page catches up once it is back." if why else CAUGHT_OUT
            await self.send(text_data=render_to_string("debates/partials/outage.html", {"message": said}))
            await asyncio.sleep(pause)
            pause = min(pause * 2, CATCH_UP_LAST)
            try:
                await self.send_snapshot()
            except Disconnected:
                return
            except Exception as again:
                error = again
            else:
                return

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        """The socket is one-way: whatever a client sends (nothing, from our pages) is ignored."""

    async def disconnect(self, code: int) -> None:
        if self.counted:
            self.counted = False
            QuestionConsumer.open -= 1
        await self.stop_following()

    async def stop_following(self) -> None:
        """No broadcast, resync or queued fragment reaches this socket any more. The mailbox is
        closed last: a handler running in it (a recheck) is cancelled there, with nothing left to do."""
        if self.watchdog is not None:
            self.watchdog.cancel()
        if self.mailbox is not None:
            self.channel_layer.unsubscribe(self.channel_name)
        if self.group:
            await self.channel_layer.group_discard(self.group, self.channel_name)
        if self.mailbox is not None:
            self.mailbox.close()

    async def live_recheck(self, message: dict[str, Any]) -> None:
        """The question's sharing changed (``recheck_viewers``): a user who may no longer read it is let go."""
        if not await can_watch(self.question_id, self.scope["user"]):
            await self.close(code=REVOKED, reason=REVOKED_REASON)
            await self.stop_following()

    async def send_snapshot(self) -> None:
        state = read_state(self.question_id)  # the live state first, then the DB
        debate, html = await shared_snapshot(self.question_id, state)
        self.seq, self.epoch, self.complete = debate.seq, debate.epoch, frozenset(debate.complete)
        self.heard = asyncio.get_running_loop().time()
        await self.send(text_data=html)
        if not debate.live:
            await self.close(code=1000)  # a normal close: the htmx extension does not reconnect
        elif self.watchdog is None:
            self.watchdog = asyncio.create_task(self.resync_when_silent())

    async def resync_when_silent(self) -> None:
        """A broadcast the layer lost (the Redis layer can drop one when a receive is cancelled),
        with nothing after it to reveal the gap: the end of a run, say. After a silence, a state
        ahead of this viewer means a fresh snapshot, and so does no state at all: the run ended
        while Redis was away, its end and its state lost with it, and only the DB knows."""
        loop = asyncio.get_running_loop()
        while True:
            await asyncio.sleep(max(0.0, self.heard + RESYNC_AFTER - loop.time()))
            if loop.time() - self.heard < RESYNC_AFTER:
                continue
            self.heard = loop.time()
            state = read_state(self.question_id)
            if state is None or self.recounted(state.epoch) or state.seq > self.seq:
                try:
                    await self.send_snapshot()
                except Exception as error:
                    await self.catch_up(error)

    def recounted(self, epoch: str) -> bool:
        """The run started its seq afresh (resumed with its state lost): what this viewer has is stale."""
        return bool(self.epoch) and epoch != self.epoch

    async def live_batch(self, message: dict[str, Any]) -> None:
        """A LiveSink broadcast (format in debates/live/sink.py)."""
        if self.recounted(message["epoch"]):
            await self.send_snapshot()
            return
        if message["seq"] <= self.seq:
            return  # already in the snapshot
        if message["seq"] > self.seq + 1:
            await self.send_snapshot()  # one never arrived: start again from what is stored
            return
        self.seq, self.epoch, self.heard = message["seq"], message["epoch"], asyncio.get_running_loop().time()
        if message["final"]:
            await self.send_snapshot()
            return
        html = "".join(
            part["html"] for part in message["parts"] if not (part["chunk"] and part["card"] in self.complete)
        )
        if html:
            await self.send(text_data=html)
