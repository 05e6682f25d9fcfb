"""A worker for the server setup: runs queued debates, several at once, and resumes orphans.

The queue is django-tasks-db's (rows claimed with SELECT … FOR UPDATE SKIP LOCKED, as its own
db_worker does); this worker differs only in running up to --concurrency debates on one event
loop, since a debate waits on the network, not the CPU, and in polling the queue as soon as a
task is queued (runs.wake), not only every --interval. Every poll it also enqueues runs whose
lease lapsed (their worker died), so another worker resumes them from the last stored contribution.

SIGTERM/SIGINT: stop taking work, let running debates finish for --drain seconds, then stop
them; their leases are released at once so another worker resumes them.
"""

import asyncio
import logging
import signal

import uvloop
from asgiref.sync import sync_to_async
from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.db import close_old_connections
from django_tasks_db.models import DBTaskResult
from django_tasks_db.utils import exclusive_transaction

from debates.live.layer import broadcasts_stay_in_process
from debates.roster.readiness import REPORT_EVERY
from debates.runs import clis, execute, lease, outage, wake
from teorema.heap import freeze_loaded

log = logging.getLogger("debates.worker")


def claim_ready(worker_id: str, limit: int) -> list[DBTaskResult]:
    """Up to ``limit`` ready tasks, oldest first, claimed for this worker in one transaction.

    One hop to the DB thread for a burst: claimed one a hop, each claim queued behind the starts
    of the runs claimed before it, and the last of 50 questions posted together was claimed
    1.75 s after the first."""
    close_old_connections()
    tasks = DBTaskResult.objects.ready().filter(backend_name="default")
    with exclusive_transaction(tasks.db):
        claimed = list(tasks.select_for_update(skip_locked=True)[:limit])
        for result in claimed:
            result.claim(worker_id)
    return claimed


async def run_claimed(result: DBTaskResult) -> None:
    try:
        stored = result.task_result
        value = await result.task.acall(*stored.args, **stored.kwargs)
    except asyncio.CancelledError:
        await sync_to_async(result.set_failed)(RuntimeError("worker stopped; the run resumes elsewhere"))
        raise
    except Exception as error:
        log.exception("task %s failed", result.id)
        await sync_to_async(result.set_failed)(error)
    else:
        await sync_to_async(result.set_successful)(value)


class Worker:
    def __init__(self, concurrency: int, interval: float, drain: float) -> None:
        self.concurrency = concurrency
        self.interval = interval
        self.drain = drain
        self.running: set[asyncio.Task] = set()
        self.stopping = asyncio.Event()

    def start(self, coroutine) -> None:
        task = asyncio.create_task(coroutine)
        self.running.add(task)
        task.add_done_callback(self.running.discard)

    async def serve(self) -> None:
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, self.stopping.set)
        log.info("worker %s: up to %d debates at once", lease.OWNER, self.concurrency)
        woken = asyncio.Event()
        listening = asyncio.create_task(wake.listen(woken))
        reported = -REPORT_EVERY
        while not self.stopping.is_set():
            woken.clear()  # before the poll: a task queued during it wakes the next one
            if loop.time() - reported >= REPORT_EVERY:
                async with outage.riding_out("reporting the CLIs this worker can run"):
                    await sync_to_async(clis.report)(lease.OWNER)
                    reported = loop.time()
            async with outage.riding_out("polling the queue"):
                for question_id in await sync_to_async(lease.resumable_ids)(include_queued=False):
                    if len(self.running) < self.concurrency and not lease.runs_here(question_id):
                        self.start(execute.execute(question_id))  # orphaned by a dead worker: resume it
                while (free := self.concurrency - len(self.running)) > 0:
                    claimed = await sync_to_async(claim_ready)(lease.OWNER, free)
                    for result in claimed:
                        self.start(run_claimed(result))
                    if len(claimed) < free:
                        break
            wakers = {asyncio.create_task(self.stopping.wait()), asyncio.create_task(woken.wait())}
            await asyncio.wait({*wakers, *self.running}, timeout=self.interval, return_when=asyncio.FIRST_COMPLETED)
            for waker in wakers:
                waker.cancel()
        listening.cancel()
        async with outage.riding_out("withdrawing this worker's CLI reports"):
            await sync_to_async(clis.withdraw)(lease.OWNER)
        await self.shut_down()

    async def shut_down(self) -> None:
        if self.running:
            log.info("draining %d running debates for up to %.0fs", len(self.running), self.drain)
            _done, pending = await asyncio.wait(set(self.running), timeout=self.drain)
            for task in pending:
                task.cancel()
            await asyncio.gather(*pending, return_exceptions=True)


class Command(BaseCommand):
    help = "Run queued debates (server setup: TEOREMA_RUN_IN_PROCESS=0, REDIS_URL set)."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--concurrency", type=int, default=settings.TEOREMA["WORKER_CONCURRENCY"])
        parser.add_argument("--interval", type=float, default=1.0, help="Seconds between polls of the queue.")
        parser.add_argument("--drain", type=float, default=30.0, help="Seconds running debates get on SIGTERM.")

    def handle(self, *args, concurrency: int, interval: float, drain: float, **options) -> None:
        if settings.RUN_IN_PROCESS:
            raise CommandError("Debates run inside the web process here; set TEOREMA_RUN_IN_PROCESS=0 to use workers.")
        if broadcasts_stay_in_process():
            raise CommandError("A worker needs REDIS_URL: its stream must reach viewers on the web processes.")
        if concurrency < 1 or interval <= 0 or drain < 0:
            raise CommandError("--concurrency must be at least 1, --interval positive, --drain not negative.")
        freeze_loaded()
        uvloop.run(Worker(concurrency, interval, drain).serve())  # C event loop: see teorema/serve.py
