"""Running tasks in a child Python process with a deadline per task and an address-space cap.

SymPy can hang (factorising a 150-digit number) or explode (expanding a huge power), and a
Python thread cannot be interrupted inside a C-level integer operation: only a process can be
killed. One child serves a whole run (``Sandbox``); after a timeout it is killed and a fresh one
takes the remaining tasks.
"""

import asyncio
import contextlib
import json
import sys
import tempfile
import weakref
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from debates.grounding.extract import Task
from debates.grounding.facts import Fact

TIME_LIMIT_S = 3.0
STARTUP_LIMIT_S = 30.0  # importing SymPy on a busy machine
MEMORY_LIMIT_BYTES = 1 << 30
CPU_LIMIT_S = 60  # a backstop should the parent die without killing the child
WORKER = Path(__file__).with_name("worker.py")


class WorkerFailed(Exception):
    """The child could not start or died mid-task."""


OUT_OF_TIME = "the time for these computations ran out"


@dataclass(frozen=True)
class Computed:
    """A task and what came of it: its facts, or why there are none, in words ("" when it had
    nothing to say)."""

    task: Task
    facts: tuple[Fact, ...] = ()
    why: str = ""
    timed_out: bool = False  # it was started and gave no result in its time

    @property
    def note(self) -> str:
        """What did not come of it, as the grounding before the panel says it."""
        verb = "Did not compute" if self.why == OUT_OF_TIME else "Gave up on" if self.timed_out else "Could not compute"
        return f"{verb} {self.task.describe()}: {self.why}."


async def compute(tasks: list[Task]) -> tuple[list[Fact], list[str]]:
    """Facts for the tasks that finished in time, and a note for each that did not (a child of its own)."""
    sandbox = Sandbox()
    try:
        return await sandbox.compute(tasks)
    finally:
        await sandbox.close()


class Sandbox:
    """A child kept for many computations (the checks between rounds of every run on an event loop:
    ``shared``), so SymPy is loaded once; ``warm`` starts it ahead of the first computation, off its
    path. Computations take turns on its pipe. A child that timed out or died is replaced for the
    next task."""

    def __init__(self) -> None:
        self.starting: asyncio.Task[asyncio.subprocess.Process] | None = None
        self.turn = asyncio.Lock()

    def warm(self) -> None:
        """Start the child now, in the background (call it on the run's event loop)."""
        if self.starting is None:
            self.starting = asyncio.create_task(spawn())

    async def child(self) -> asyncio.subprocess.Process:
        self.warm()
        assert self.starting is not None, "warm() starts it"
        try:
            return await asyncio.shield(self.starting)
        except WorkerFailed:
            self.starting = None
            raise

    async def compute(self, tasks: list[Task]) -> tuple[list[Fact], list[str]]:
        """Facts for the tasks that finished in time, and a note for each that did not."""
        done = await self.each(tasks)
        return [fact for one in done for fact in one.facts], [one.note for one in done if one.why]

    async def each(self, tasks: list[Task], deadline: float | None = None) -> list["Computed"]:
        """Each task's facts, or why it has none; none is started once the event loop's clock passes
        ``deadline``, and none waits past it (the tasks share one time budget: the checks of a round)."""
        async with self.turn:
            return await self._each(tasks, deadline)

    async def _each(self, tasks: list[Task], deadline: float | None) -> list["Computed"]:
        done: list[Computed] = []
        clock = asyncio.get_running_loop().time
        for task in tasks:
            if deadline is not None and clock() >= deadline:
                done.append(Computed(task, why=OUT_OF_TIME))
                continue
            child = None
            try:
                # A child still starting when the time is out keeps starting, for the next computations.
                child = await (self.child() if deadline is None else asyncio.wait_for(self.child(), deadline - clock()))
                limit = TIME_LIMIT_S if deadline is None else min(TIME_LIMIT_S, deadline - clock())
                reply = await ask(child, task, limit)
            except TimeoutError:
                if deadline is not None and clock() >= deadline:
                    done.append(Computed(task, why=OUT_OF_TIME))
                else:
                    done.append(Computed(task, why=f"no result within {TIME_LIMIT_S:g} s", timed_out=True))
            except WorkerFailed as failure:
                done.append(Computed(task, why=str(failure)))
            else:
                facts = tuple(Fact(**fact) for fact in reply.get("facts", ()))
                done.append(Computed(task, facts, str(reply.get("error", ""))))
                continue
            if child is not None:
                await self.close()  # it timed out or died mid-task: a fresh one takes the rest
        return done

    async def close(self) -> None:
        """Stop the child (or its start): no orphan, whatever state it is in."""
        starting, self.starting = self.starting, None
        if starting is None:
            return
        if not starting.done():
            starting.cancel()
        with contextlib.suppress(BaseException):
            await asyncio.shield(starting)
        if not starting.cancelled() and starting.exception() is None:
            await stop(starting.result())


SHARED: "weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Sandbox]" = weakref.WeakKeyDictionary()


def shared() -> Sandbox:
    """This event loop's kept child, for the checks between rounds of all its runs: one SymPy load
    and about 50 MB per process, not per run (it ends with its process: its stdin closes)."""
    loop = asyncio.get_running_loop()
    if loop not in SHARED:
        SHARED[loop] = Sandbox()
    return SHARED[loop]


async def spawn() -> asyncio.subprocess.Process:
    try:
        child = await start_worker()
    except OSError as error:
        raise WorkerFailed(f"SymPy could not be started ({error.strerror})") from error
    assert child.stdout is not None, "start_worker pipes stdout"
    try:
        line = await asyncio.wait_for(child.stdout.readline(), STARTUP_LIMIT_S)
    except TimeoutError:
        line = b""
    except BaseException:  # cancelled while SymPy loads: no orphan
        await stop(child)
        raise
    if line.strip() != b"ready":
        await stop(child)
        raise WorkerFailed("SymPy did not start")
    return child


async def start_worker() -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        sys.executable,
        "-I",  # no PYTHON* variables, no user site, no script dir on sys.path
        str(WORKER),
        str(MEMORY_LIMIT_BYTES),
        str(CPU_LIMIT_S),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
        cwd=tempfile.gettempdir(),
        env={},
        start_new_session=True,
    )


async def ask(child: asyncio.subprocess.Process, task: Task, limit: float) -> dict[str, Any]:
    assert child.stdin is not None, "start_worker pipes stdin"
    assert child.stdout is not None, "start_worker pipes stdout"
    try:
        child.stdin.write(json.dumps(task.payload()).encode() + b"\n")
        await child.stdin.drain()
        line = await asyncio.wait_for(child.stdout.readline(), limit)
        return json.loads(line)
    except (ConnectionError, ValueError) as error:  # a dead child: broken pipe or empty reply
        raise WorkerFailed("the computation was stopped (out of memory or CPU time)") from error


async def stop(child: asyncio.subprocess.Process) -> None:
    with contextlib.suppress(ProcessLookupError):
        child.kill()
    # Shielded: a cancelled ground() must still reap its child.
    await asyncio.shield(child.wait())
