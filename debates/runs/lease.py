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
from datetime import timedelta

from django.conf import settings
from django.db.models import Q
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from debates.models import Question, Status
from debates.runs.spec import freeze_roster

log = logging.getLogger(__name__)

LEASE = timedelta(seconds=settings.TEOREMA["LEASE_SECONDS"])
RENEW_EVERY = LEASE.total_seconds() / 4
CANCEL_POLL = 1.0
OWNER = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
RESUMABLE = [Status.QUEUED, Status.RUNNING]


class TakenOver(Exception):
    """Why a dead worker's task row failed: another runner took its run over."""


def claim(question_id: int) -> Question | None:
    """Take the run's lease if it is free or lapsed; None when someone else holds it."""
    now = timezone.now()
    claimed = (
        Question.objects.filter(pk=question_id, status__in=RESUMABLE)
        .filter(Q(lease_expires__isnull=True) | Q(lease_expires__lt=now))
        .update(status=Status.RUNNING, lease_owner=OWNER, lease_expires=now + LEASE)
    )
    if not claimed:
        return None
    close_orphaned_task_rows(question_id)
    question = Question.objects.select_related(
        "panel__moderator", "panel__tie_breaker", "panel__fallback_moderator"
    ).get(pk=question_id)
    if not question.roster:
        question.roster = freeze_roster(question)
        question.started_at = now
        question.save(update_fields=["roster", "started_at"])
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


async def watch(question_id: int, task: asyncio.Task) -> None:
    """Renew the lease and stop the run when the asker cancels it (from any process)."""
    renewed = asyncio.get_running_loop().time()
    questions = Question.objects.filter(pk=question_id)
    while True:
        await asyncio.sleep(CANCEL_POLL)
        if await questions.filter(cancel_requested=True).aexists():
            task.cancel()
            return
        if asyncio.get_running_loop().time() - renewed >= RENEW_EVERY:
            renewed = asyncio.get_running_loop().time()
            if await questions.filter(lease_owner=OWNER).aupdate(lease_expires=timezone.now() + LEASE):
                continue
            if await questions.filter(status=Status.RUNNING).exclude(lease_owner=OWNER).aexists():
                # We stalled past the lease and another runner took over: two runners would bill
                # every call twice and interleave the stream, so this one stops.
                log.warning("question %s: lease lost to another runner, stopping here", question_id)
                task.cancel()
                return


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
