"""A task backend for the single-process mode: run the task on the server's own event loop.

Local mode keeps one Daphne process with the in-memory channel layer, which is bound to that
process's loop, so a debate must run there. Durability does not come from this backend but
from the question's lease: a run interrupted by a restart is enqueued again on startup.
"""

import asyncio
import contextvars
from collections.abc import Coroutine
from typing import Any

from asgiref.sync import async_to_sync
from django.tasks.backends.base import BaseTaskBackend
from django.tasks.base import Task, TaskResult, TaskResultStatus
from django.utils.crypto import get_random_string

_running: set[asyncio.Task[Any]] = set()


def _start(coroutine: Coroutine[Any, Any, Any]) -> None:
    # A fresh context: the run must not inherit the request's asgiref executor, which dies
    # with the request and would break every later sync_to_async call of the run.
    task = asyncio.get_running_loop().create_task(coroutine, context=contextvars.Context())
    _running.add(task)  # a strong reference, or the loop may drop it mid-run
    task.add_done_callback(_running.discard)


async def _start_from_sync(coroutine: Coroutine[Any, Any, Any]) -> None:
    _start(coroutine)


async def finish_started() -> int:
    """Wait for every run this process started (a process whose client left, such as a stdio MCP
    server, finishes them rather than leaving them to a lease that lapses); how many there were."""
    started = list(_running)
    await asyncio.gather(*started, return_exceptions=True)
    return len(started)


class InProcessBackend(BaseTaskBackend):
    supports_async_task = True

    def enqueue[**P, R](self, task: Task[P, R], args: list[Any], kwargs: dict[str, Any]) -> TaskResult[P, R]:
        self.validate_task(task)
        result: TaskResult[P, R] = TaskResult(
            task=task,
            id=get_random_string(32),
            status=TaskResultStatus.READY,
            enqueued_at=None,
            started_at=None,
            last_attempted_at=None,
            finished_at=None,
            args=args,
            kwargs=kwargs,
            backend=self.alias,
            errors=[],
            worker_ids=[],
        )
        coroutine = task.acall(*args, **kwargs)
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            # Called from a sync view: asgiref hands the call to the server's loop.
            async_to_sync(_start_from_sync)(coroutine)
        else:
            _start(coroutine)
        return result
