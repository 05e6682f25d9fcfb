"""One consumer: join the question's group, send a snapshot, then only the fragments after it.

The order is what makes the stream exact (docs/architecture.md): join the group first (so
broadcasts queue up), then read the cache, then the DB; forward only broadcasts whose seq is
above the snapshot's, and no streamed text of a card the snapshot already shows complete.
"""

from typing import Any

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.template.loader import render_to_string

from debates.live import snapshot
from debates.live.state import LiveState, group_name, read_state
from debates.models import Question


@database_sync_to_async
def can_watch(question_id: int, user) -> bool:
    return Question.objects.visible_to(user).filter(pk=question_id).exists()


@database_sync_to_async
def render_snapshot(question_id: int, state: LiveState | None) -> tuple[snapshot.Debate, str]:
    """The debate region now; once the run is over, the whole page part without the socket."""
    debate = snapshot.build(question_id, state)
    template = "debates/partials/snapshot.html" if debate.live else "debates/partials/live.html"
    return debate, render_to_string(template, {"debate": debate})


class QuestionConsumer(AsyncWebsocketConsumer):
    group = ""
    seq = 0
    complete: frozenset[str] = frozenset()

    async def connect(self) -> None:
        self.question_id = self.scope["url_route"]["kwargs"]["pk"]
        if not await can_watch(self.question_id, self.scope["user"]):
            await self.close()  # before accept: the handshake is refused with a 403
            return
        self.group = group_name(self.question_id)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()
        await self.send_snapshot()

    async def dispatch(self, message: dict[str, Any]) -> None:
        """A streamed fragment goes straight to its handler.

        Channels closes stale DB connections before every handler, a trip through asgiref's one
        shared thread that also carries every run's writes: at 50 debates each fragment waited
        ~130 ms for it, in order, per viewer. Only the final batch touches the DB (the snapshot).
        """
        if message["type"] == "live.batch" and not message["final"]:
            await self.live_batch(message)
        else:
            await super().dispatch(message)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        """The socket is one-way: whatever a client sends (nothing, from our pages) is ignored."""

    async def disconnect(self, code: int) -> None:
        if self.group:
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def send_snapshot(self) -> None:
        state = read_state(self.question_id)  # the cache first, then the DB
        debate, html = await render_snapshot(self.question_id, state)
        self.seq, self.complete = debate.seq, frozenset(debate.complete)
        await self.send(text_data=html)
        if not debate.live:
            await self.close(code=1000)  # a normal close: the htmx extension does not reconnect

    async def live_batch(self, message: dict[str, Any]) -> None:
        """A LiveSink broadcast (format in debates/live/sink.py)."""
        if message["seq"] <= self.seq:
            return  # already in the snapshot
        self.seq = message["seq"]
        if message["final"]:
            await self.send_snapshot()
            return
        html = "".join(
            part["html"] for part in message["parts"] if not (part["chunk"] and part["card"] in self.complete)
        )
        if html:
            await self.send(text_data=html)
