"""The task that runs (or resumes) a question, and what enqueues it: local mode and workers alike
(an evaluation's is its own package's, ``evaluation.tasks``).

Local mode runs it on the server's own loop (taskbackend.InProcessBackend); a server setup puts
it in the database for the workers. A process that starts resumes what a dead one left.
"""

import asyncio
import logging

from asgiref.sync import sync_to_async
from django.conf import settings
from django.tasks import task

from debates.models import Question
from debates.runs import execute, lease

log = logging.getLogger(__name__)


@task()
async def run_question(question_id: int) -> str | None:
    """Returns the run's final status, or None when another runner holds it."""
    return await execute.execute(question_id)


def submit(question: Question) -> None:
    """Enqueue a question's run: on this server's loop (local mode) or for a worker (server mode)."""
    run_question.enqueue(question.pk)


async def resume_interrupted() -> list[int]:
    """Enqueue every run left unfinished by a process that died (its lease lapsed)."""
    ids = await sync_to_async(lease.resumable_ids)()
    for question_id in ids:
        await run_question.aenqueue(question_id)
    return ids


PROBES = frozenset({"/livez", "/readyz", "/healthz"})  # teorema/urls.py: debates.health's views


class ResumeOnFirstCall:
    """ASGI wrapper: the first connection to a fresh server process resumes interrupted runs, and
    from then on it looks again once a lease period: a run whose process went away (a terminal
    closed, a stdio MCP server its client ended, a process killed) is taken up here.

    Daphne has no startup hook, and the runs must live on its event loop (the in-memory
    channel layer is bound to it), so the first call is the earliest safe moment. Resuming that
    fails (the database is down) leaves the call to be answered as usual and the next call tries
    again: only a resume that succeeded counts as done. A probe never waits for it: with the
    database down each try costs a connection's timeout, longer than a probe waits.
    """

    def __init__(self, app) -> None:
        self.app = app
        self.started = False
        self.looking: asyncio.Task | None = None  # the look again once a lease period

    async def __call__(self, scope, receive, send) -> None:
        if not self.started and scope["type"] in {"http", "websocket"} and scope.get("path") not in PROBES:
            self.started = True  # set first: a call that comes meanwhile does not resume twice
            if settings.RUN_IN_PROCESS:
                try:
                    await resume_interrupted()
                except Exception as error:
                    self.started = False
                    log.warning("resuming interrupted runs failed (the next call tries again): %r", error)
                else:
                    self.looking = asyncio.create_task(self._resume_as_leases_lapse())
        await self.app(scope, receive, send)

    async def _resume_as_leases_lapse(self) -> None:
        """A run of a process that died just before this one started, or since, is still leased:
        look again once a lease period (one query when there is nothing to resume)."""
        while True:
            await asyncio.sleep(lease.LEASE.total_seconds())
            try:
                await resume_interrupted()
            except Exception as error:
                log.warning("resuming interrupted runs failed (trying again in a lease period): %r", error)
