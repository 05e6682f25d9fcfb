"""Who runs a question: the lease.

A run belongs to whoever holds its lease (``Question.lease_owner`` until ``lease_expires``);
the holder renews it while working, so a run whose process died is picked up again once the
lease lapses and continues from its stored contributions. Taking a run over also closes the
task row the dead worker left running, which nothing else would ever finish.
"""

import asyncio
import logging
import os
import socket
import uuid
import weakref
from datetime import timedelta

from django.conf import settings
from django.db.models import Q
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from debates.engine.vocabulary import CANCELLED_BY_ASKER
from debates.models import Question, Status
from debates.roster import panels
from debates.runs import outage

log = logging.getLogger(__name__)

LEASE = timedelta(seconds=settings.TEOREMA["LEASE_SECONDS"])
RENEW_EVERY = LEASE.total_seconds() / 4
CANCEL_POLL = 1.0
OWNER = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
RESUMABLE = [Status.QUEUED, Status.RUNNING]


class TakenOver(Exception):
    """Why a dead worker's task row failed: another runner took its run over."""


def claim(question_id: int) -> Question | None:
    """Take the run's lease if it is free or lapsed; None when someone else holds it. The question
    comes with its panel's seats and roles as they are now, their providers with them."""
    now = timezone.now()
    claimed = (
        Question.objects.filter(pk=question_id, status__in=RESUMABLE)
        .filter(Q(lease_expires__isnull=True) | Q(lease_expires__lt=now))
        .update(status=Status.RUNNING, lease_owner=OWNER, lease_expires=now + LEASE)
    )
    if not claimed:
        return None
    if not settings.RUN_IN_PROCESS:  # task rows exist only where workers run the tasks
        close_orphaned_task_rows(question_id)
    question = Question.objects.get(pk=question_id)
    panel = panels.by_pk(question.panel_id)  # for the frozen roster, the spec and the estimate
    assert panel is not None, "a panel with questions cannot be deleted"
    question.panel = panel
    return question


def close_orphaned_task_rows(question_id: int) -> None:
    """Fail the task rows other workers left running for this run, now that we hold its lease.

    Their worker died (SIGKILL, lost machine) before it could finish the row, whether it had
    taken the lease or not yet; nothing else would ever close it. Our own row stays open.
    """
    for row in DBTaskResult.objects.running().filter(args_kwargs__args=[question_id]):
        worker = row.worker_ids[-1] if row.worker_ids else "a worker"
        if worker != OWNER:
            row.set_failed(TakenOver(f"{worker} left question {question_id} unfinished; {OWNER} took the run over"))


class Watch:
    """The runs this event loop holds, watched together: one query a second, not one per run.

    Each poll asks which of them the asker cancelled (from any process); every RENEW_EVERY it
    renews all their leases in one UPDATE and stops any run whose lease another runner took.
    """

    def __init__(self) -> None:
        self.runs: dict[int, asyncio.Task] = {}
        self.poller: asyncio.Task | None = None

    def add(self, question_id: int, task: asyncio.Task) -> None:
        self.runs[question_id] = task
        if self.poller is None or self.poller.done():  # done: its last run was stopped
            self.poller = asyncio.create_task(self.poll())

    def remove(self, question_id: int, task: asyncio.Task) -> None:
        if self.runs.get(question_id) is task:
            del self.runs[question_id]
        if not self.runs and self.poller is not None:
            self.poller.cancel()  # nothing left to watch: no query until the next run starts one
            self.poller = None

    async def poll(self) -> None:
        loop = asyncio.get_running_loop()
        renewed = loop.time()
        while self.runs:
            await asyncio.sleep(CANCEL_POLL)
            async with outage.riding_out("watching this process's runs"):
                cancelled = Question.objects.filter(pk__in=list(self.runs), cancel_requested=True)
                async for pk in cancelled.values_list("pk", flat=True):
                    self.stop(pk, CANCELLED_BY_ASKER)
                if self.runs and loop.time() - renewed >= RENEW_EVERY:
                    ids = list(self.runs)
                    mine = Question.objects.filter(pk__in=ids, lease_owner=OWNER)
                    if await mine.aupdate(lease_expires=timezone.now() + LEASE) < len(ids):
                        await self.stop_lost(ids)
                    renewed = loop.time()

    async def stop_lost(self, ids: list[int]) -> None:
        """Stop the runs another runner took over while this one stalled past the lease: two runners
        would bill every call twice and interleave the stream."""
        taken = Question.objects.filter(pk__in=ids, status=Status.RUNNING).exclude(lease_owner=OWNER)
        async for pk in taken.values_list("pk", flat=True):
            log.warning("question %s: lease lost to another runner, stopping here", pk)
            self.stop(pk)

    def stop(self, question_id: int, why: str | None = None) -> None:
        """Cancel the run's task; ``why`` says it is on purpose, and the voices it cuts off are kept."""
        task = self.runs.pop(question_id, None)
        if task is not None:
            task.cancel(why)


_watches: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Watch] = weakref.WeakKeyDictionary()


def runs_here(question_id: int) -> bool:
    """Whether this event loop runs the question already: its lease may have lapsed while the
    database was away, and taking it again would run it twice, every call paid twice."""
    watch = _watches.get(asyncio.get_running_loop())
    return watch is not None and question_id in watch.runs


def stop_here(question_id: int) -> None:
    """Stop the question's run at once if this event loop runs it, as its asker's cancel would within
    a poll (``execute.cancel`` must have asked first): a client that cancels and goes away, an MCP
    server over stdio, would otherwise take the run with it before it kept its voices' words."""
    watch = _watches.get(asyncio.get_running_loop())
    if watch is not None:
        watch.stop(question_id, CANCELLED_BY_ASKER)


async def watch(question_id: int, task: asyncio.Task) -> None:
    """Keep the run's lease and stop ``task`` when the asker cancels it, until this is cancelled."""
    loop = asyncio.get_running_loop()
    shared = _watches.get(loop) or _watches.setdefault(loop, Watch())
    shared.add(question_id, task)
    try:
        await asyncio.Future()  # until the run ends and cancels its watch
    finally:
        shared.remove(question_id, task)


def resumable_ids(include_queued: bool = True) -> list[int]:
    """Runs nobody holds: running ones whose lease lapsed, and queued ones (in the server setup,
    only those queued for long: the others are in the task queue)."""
    now = timezone.now()
    lapsed = Q(lease_expires__isnull=True) | Q(lease_expires__lt=now)
    queued = Q(status=Status.QUEUED) & lapsed
    if not include_queued:
        # Queued far longer than a claim takes: its worker died between claiming the task and
        # taking the lease, and the task row will never be claimed again.
        queued &= Q(created_at__lt=now - 5 * LEASE)
    return list(
        Question.objects.filter((Q(status=Status.RUNNING) & lapsed) | queued)
        .order_by("created_at")
        .values_list("pk", flat=True)
    )
