"""The channel layers: the single process's in memory, made cheap per message, and the
server's on Redis, which also keeps each run's live state (``SharedChannelLayer``, below).
Both hand a subscribed consumer its messages at once.

Channels' InMemoryChannelLayer sweeps every channel and group for expired entries on each
receive and group send, a walk over every viewer's channel for every message to a viewer: fan-out
grows quadratically. Expiry is a safety net for messages nobody reads (30 s here), so sweeping
once a second loses nothing. Its group send also spawned a task per member and deep-copied
the message for each; sending the one message in turn keeps the same order and says when a
viewer's queue is full instead of dropping in silence.

A consumer in this process may also subscribe its channel: a group send then hands the message
to it at once, with no queue in between. Through the queue a fragment waited three turns of the
event loop (the receiving task, Channels' wait on it, the consumer's task) before its socket
write; under load each turn is long, and a voice's first words crossed five.
"""

import asyncio
import functools
import hashlib
import logging
import time
from collections.abc import Callable
from typing import Any

import redis
from channels.layers import InMemoryChannelLayer
from channels_redis.pubsub import RedisPubSubChannelLayer
from channels_redis.utils import _consistent_hash, decode_hosts
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

    def has_members(self, group: str) -> bool:
        """Whether a group send to ``group`` now reaches anyone (the live sink renders nothing for nobody)."""
        return bool(self.groups.get(group))

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
                hand_over(deliver, message, channel)
                continue
            queue = self.channels.get(channel)
            if queue is None:
                queue = self.channels[channel] = asyncio.Queue(maxsize=self.get_capacity(channel))
            try:
                queue.put_nowait((expires, message))
            except asyncio.QueueFull:
                log.warning("channel %s is full: a viewer that stopped reading misses a message", channel)


def hand_over[T](deliver: Callable[[T], None], message: T, channel: str) -> None:
    """A message to a subscriber: one viewer's fault is not the run's, nor the other viewers'."""
    try:
        deliver(message)
    except Exception:
        log.exception("handing a message to %s failed", channel)


def broadcasts_stay_in_process() -> bool:
    """An in-memory layer: a run's live text reaches only the sockets of the process running it."""
    return in_memory(str(settings.CHANNEL_LAYERS["default"]["BACKEND"]))


@functools.cache
def in_memory(backend: str) -> bool:
    """Asked before every broadcast: the import is looked up once per backend."""
    return issubclass(import_string(backend), InMemoryChannelLayer)


# A run's live state, kept in parts beside its broadcasts: KEYS[1] is the state's hash; ARGV the
# group's channel, the message, the state's time to live, "1" to drop the parts not written, then
# the parts written, as name, value pairs. Some parts of a state Redis lost (restarted, or expired)
# would not make a state: then nothing is written or sent (nil).
PUBLISH_WITH_PARTS = """
if ARGV[4] == '1' then redis.call('DEL', KEYS[1])
elseif redis.call('EXISTS', KEYS[1]) == 0 then return false end
redis.call('HSET', KEYS[1], unpack(ARGV, 5))
redis.call('EXPIRE', KEYS[1], ARGV[3])
return redis.call('PUBLISH', ARGV[1], ARGV[2])
"""
PUBLISH_WITH_PARTS_SHA = hashlib.sha1(PUBLISH_WITH_PARTS.encode()).hexdigest()


class SharedChannelLayer(RedisPubSubChannelLayer):
    """The server's layer (Redis pub/sub), which also keeps each run's live state.

    A worker wrote the whole state before each broadcast, many a second per debate, with a command
    of its own: that write and the publish after it were a large share of the worker's CPU,
    nearly all of it redis-py's cost per command. Here both go as one script call, the state
    in parts (``live.state``): what a broadcast changed, not all of it. The state is read from the
    same Redis, by any process, from any thread.
    """

    def __init__(self, *args: Any, prefix: str = "asgi", **kwargs: Any) -> None:
        super().__init__(*args, prefix=prefix, **kwargs)
        self.prefix = prefix
        self.hosts = decode_hosts(kwargs.get("hosts"))
        self.readers: dict[int, redis.Redis] = {}  # shard index -> a client for any thread
        self.last: tuple[bytes, dict[str, Any]] | None = None  # the last message deserialized

    def subscribe(self, channel: str, deliver: Callable[[dict[str, Any]], None]) -> None:
        """As ``LiveChannelLayer.subscribe``: what reaches this process for ``channel`` (its
        groups' messages too) goes to ``deliver`` instead of the channel's queue, deserialized
        once for all of this process's viewers of a group."""
        self._get_layer().channels[channel] = Handoff(self, channel, deliver)

    def unsubscribe(self, channel: str) -> None:
        """Back to a queue, which channels_redis drops, with the channel's Redis subscription,
        once the consumer's receive is cancelled."""
        channels = self._get_layer().channels
        if isinstance(channels.get(channel), Handoff):
            channels[channel] = asyncio.Queue()

    def deserialized(self, data: bytes) -> dict[str, Any]:
        """A message as it came from Redis: a group's goes to each of its viewers here in turn."""
        if self.last is None or self.last[0] is not data:
            self.last = (data, self.deserialize(data))
        return self.last[1]

    def group_channel(self, group: str) -> str:
        """The Redis channel of ``group``'s messages, as channels_redis names it."""
        return f"{self.prefix}__group__{group}"

    async def group_send_with_parts(
        self, group: str, message: dict[str, Any], key: str, parts: dict[str, bytes], ttl: int, *, fresh: bool
    ) -> bool:
        """Write ``parts`` of the hash ``key`` (``fresh``: drop its other parts first), then send
        ``message`` to ``group`` as ``group_send`` does: one command, to the group's shard.
        False, with nothing written or sent, when the hash is gone and the parts are not ``fresh``."""
        # channels_redis 4.3's shard internals (pinned; the tests receive what this sends).
        layer = self._get_layer()
        channel = self.group_channel(group)
        shard = layer._get_shard(channel)
        args = (key, channel, self.serialize(message), ttl, int(fresh), *(x for part in parts.items() for x in part))
        # Not under the shard's lock, as channels_redis's publish is: that lock let one command
        # at a time through for every run of the process, each waiting out the round trips
        # ahead of it. The client's pool gives each its own connection; a run's broadcasts keep
        # their order (its sink waits for each before the next).
        shard._ensure_redis()
        try:
            sent = await shard._redis.evalsha(PUBLISH_WITH_PARTS_SHA, 1, *args)
        except redis.exceptions.NoScriptError:  # a new or restarted Redis: EVAL loads it
            sent = await shard._redis.eval(PUBLISH_WITH_PARTS, 1, *args)
        return sent is not None

    def parts(self, key: str, group: str) -> dict[str, bytes]:
        """Every part of the hash ``key`` kept with ``group``'s messages (none when it is absent)."""
        index = _consistent_hash(self.group_channel(group), len(self.hosts))
        reader = self.readers.get(index)
        if reader is None:  # two threads may both build one: either serves
            host = dict(self.hosts[index])
            address = host.pop("address", None)
            pool = redis.ConnectionPool.from_url(address, **host) if address else redis.ConnectionPool(**host)
            reader = self.readers[index] = redis.Redis(connection_pool=pool)
        found: dict[bytes, bytes] = reader.hgetall(key)  # type: ignore[assignment]  # sync client
        return {name.decode(): part for name, part in found.items()}


class Handoff:
    """Stands in for a subscribed channel's queue in channels_redis, which puts there what
    Redis sends it: the message goes to the subscriber at once. Through the queue a fragment
    waited three turns of the event loop (the consumer's receive, Channels' wait on it, the
    consumer's task) and was deserialized once per viewer."""

    def __init__(self, layer: SharedChannelLayer, channel: str, deliver: Callable[[dict[str, Any]], None]) -> None:
        self.layer = layer
        self.channel = channel
        self.deliver = deliver

    async def get(self) -> bytes:
        """A receive that starts after the handover (Channels' starts before it) waits for
        nothing: the messages go to the subscriber."""
        return await asyncio.get_running_loop().create_future()

    def put_nowait(self, data: bytes) -> None:
        hand_over(self._deliver, data, self.channel)

    def _deliver(self, data: bytes) -> None:
        self.deliver(self.layer.deserialized(data))
