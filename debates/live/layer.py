"""The in-memory channel layer of the single-process mode, made cheap per message.

Channels' InMemoryChannelLayer sweeps every channel and group for expired entries on each
receive and group send: at 150 viewers that walk cost ~96 µs per call against ~20 µs at 10, so
fan-out grew quadratically. Expiry is a safety net for messages nobody reads (30 s here), so
sweeping once a second loses nothing. Its group send also spawned a task per member and deep-copied
the message for each; sending the one message in turn keeps the same order and says when a
viewer's queue is full instead of dropping in silence.

A consumer in this process may also subscribe its channel: a group send then hands the message
to it at once, with no queue in between. Through the queue a fragment waited three turns of the
event loop (the receiving task, Channels' wait on it, the consumer's task) before its socket
write; under load one turn takes 10-20 ms, and a voice's first words crossed five.
"""

import asyncio
import functools
import logging
import time
from collections.abc import Callable
from typing import Any

from channels.layers import InMemoryChannelLayer
from django.conf import settings
from django.utils.module_loading import import_string

log = logging.getLogger(__name__)


class LiveChannelLayer(InMemoryChannelLayer):
    sweep_every = 1.0  # seconds between sweeps for expired messages and group memberships
    _swept = 0.0

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.subscribers: dict[str, Callable[[dict[str, Any]], None]] = {}

    def subscribe(self, channel: str, deliver: Callable[[dict[str, Any]], None]) -> None:
        """Group sends to ``channel`` call ``deliver`` with the message instead of queueing it;
        ``deliver`` must not block (it queues or starts the handling)."""
        self.subscribers[channel] = deliver

    def unsubscribe(self, channel: str) -> None:
        self.subscribers.pop(channel, None)

    def _clean_expired(self) -> None:
        now = time.monotonic()
        if now - self._swept >= self.sweep_every:
            self._swept = now
            super()._clean_expired()

    async def group_send(self, group: str, message: dict[str, Any]) -> None:
        """Every member gets the same message, not a deep copy each: the live sink builds a
        message afresh per broadcast and never changes it after, and consumers only read it."""
        assert isinstance(message, dict), "Message is not a dict"
        self.require_valid_group_name(group)
        self._clean_expired()
        expires = time.time() + self.expiry
        for channel in list(self.groups.get(group, ())):
            if (deliver := self.subscribers.get(channel)) is not None:
                try:
                    deliver(message)
                except Exception:  # one viewer's fault is not the run's, nor the other viewers'
                    log.exception("handing a message to %s failed", channel)
                continue
            queue = self.channels.get(channel)
            if queue is None:
                queue = self.channels[channel] = asyncio.Queue(maxsize=self.get_capacity(channel))
            try:
                queue.put_nowait((expires, message))
            except asyncio.QueueFull:
                log.warning("channel %s is full: a viewer that stopped reading misses a message", channel)


def broadcasts_stay_in_process() -> bool:
    """An in-memory layer: a run's live text reaches only the sockets of the process running it."""
    return in_memory(str(settings.CHANNEL_LAYERS["default"]["BACKEND"]))


@functools.cache
def in_memory(backend: str) -> bool:
    """Asked before every broadcast: the import is looked up once per backend."""
    return issubclass(import_string(backend), InMemoryChannelLayer)
