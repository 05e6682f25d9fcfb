import asyncio

import pytest

from debates.grounding import sandbox


@pytest.fixture
def short_time_limit(monkeypatch: pytest.MonkeyPatch) -> float:
    """One second per computation, so the tests that wait for a timeout stay quick."""
    monkeypatch.setattr(sandbox, "TIME_LIMIT_S", 1.0)
    return 1.0


class Workers:
    """The sandbox's child processes as a test sees them: each one started, each task it was given."""

    def __init__(self) -> None:
        self.spawned: list[asyncio.subprocess.Process] = []
        self.started = asyncio.Event()  # a child exists; SymPy may still be loading in it
        self.asked = asyncio.Event()  # a task was written to a ready child
        self.computing = False  # a child holds a task and has not answered yet

    def all_stopped(self) -> bool:
        return all(child.returncode is not None for child in self.spawned)


@pytest.fixture
def workers(monkeypatch: pytest.MonkeyPatch) -> Workers:
    """Record every child the sandbox starts and every task it sends one (the real ones run)."""
    seen = Workers()
    start_worker, ask = sandbox.start_worker, sandbox.ask

    async def recording_start() -> asyncio.subprocess.Process:
        seen.spawned.append(await start_worker())
        seen.started.set()
        return seen.spawned[-1]

    async def recording_ask(child: asyncio.subprocess.Process, task, limit: float) -> dict:
        seen.computing = True
        seen.asked.set()
        try:
            return await ask(child, task, limit)
        finally:
            seen.computing = False

    monkeypatch.setattr(sandbox, "start_worker", recording_start)
    monkeypatch.setattr(sandbox, "ask", recording_ask)
    return seen
