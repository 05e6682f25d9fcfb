"""Workers woken when a task is queued, rather than at their next poll of the queue.

A worker polled the queue every second (--interval): a question asked on a quiet server waited
half a second on average, and up to a whole one, before any worker looked. Now the process that
queues a task publishes a word on Redis (which the server setup has) once the task's row is
committed, and every worker subscribed to it polls at once; the first to claim the task runs
it. The poll stays, as the fallback for a word lost while Redis was away.
"""

import asyncio
import logging
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.db import transaction

if TYPE_CHECKING:
    import redis

log = logging.getLogger(__name__)
CHANNEL = "teorema:tasks"
RETRY_AFTER = 1.0  # seconds before a worker subscribes again after Redis failed it
_publisher: list["redis.Redis"] = []  # one client (and its connection pool) per process, made on first use


def wake_workers(sender: type, **kwargs: Any) -> None:
    """Tell the workers, once the task's row is visible to them (the receiver of django's
    task_enqueued for the database backend, connected in debates.apps)."""
    if settings.REDIS_URL:  # else no worker can run (debate_worker refuses): nobody to wake
        transaction.on_commit(publish)


def publish() -> None:
    """A failure is logged, never raised: the task is queued, and the next poll finds it."""
    import redis  # here, not with the app: a process that queues nothing (most commands) never loads it

    try:
        if not _publisher:
            _publisher.append(redis.Redis.from_url(settings.REDIS_URL))
        _publisher[0].publish(CHANNEL, b"1")
    except redis.RedisError as error:
        log.warning("workers not woken for a queued task (their next poll finds it): %r", error)


async def listen(woken: asyncio.Event) -> None:
    """Set ``woken`` at every word published, for as long as the worker runs."""
    import redis.asyncio

    while True:
        client = redis.asyncio.Redis.from_url(settings.REDIS_URL)
        try:
            async with client.pubsub() as pubsub:
                await pubsub.subscribe(CHANNEL)
                async for message in pubsub.listen():
                    if message["type"] == "message":
                        woken.set()
        except redis.RedisError as error:
            log.warning("not listening for queued tasks for now (polling meanwhile): %r", error)
        finally:
            await client.aclose()
        await asyncio.sleep(RETRY_AFTER)
