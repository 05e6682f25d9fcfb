"""Items handled one at a time, in order, and at once when nothing is ahead of them.

A queue read by a task of its own costs a turn of the event loop per item: the reader wakes on
the next turn, behind everything else that became ready. Under load a turn is long, and
a voice's words crossed two such queues (its lane in the run, its viewer's socket) on their way
out. Here an item that finds the mailbox idle is handled in an eager task, which runs at once
until its first real wait (a stored contribution, a snapshot read on another thread); items that arrive
meanwhile queue behind it, in order.
"""

import asyncio
from collections import deque
from collections.abc import Awaitable, Callable


class Mailbox[T]:
    """Hands each item ``put`` to ``handle``, in order, once ``after`` (if given) is done.

    ``handle`` catches its own failures: one that escapes stops the mailbox where it is (asyncio
    logs it as the task's unretrieved exception) until the next ``put``.
    """

    def __init__(self, handle: Callable[[T], Awaitable[None]], after: Awaitable[object] | None = None) -> None:
        self.handle = handle
        self.after = after
        self.items: deque[T] = deque()
        self.task: asyncio.Task[None] | None = None

    def put(self, item: T) -> None:
        self.items.append(item)
        if self.task is None or self.task.done():
            loop = asyncio.get_running_loop()
            self.task = asyncio.Task(self._work(), loop=loop, eager_start=True)

    async def join(self) -> None:
        """Return once every item put so far is handled (or the mailbox was closed)."""
        while self.task is not None and not self.task.done():
            await asyncio.wait([self.task])

    def close(self) -> None:
        """Drop what is not handled yet and stop the handling under way."""
        self.items.clear()
        if self.task is not None:
            self.task.cancel()

    async def _work(self) -> None:
        if self.after is not None:
            await asyncio.shield(self.after)  # a closed mailbox must not cancel what it waits for
            self.after = None
        while self.items:
            await self.handle(self.items.popleft())
