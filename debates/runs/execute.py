"""Running one question in this process: the engine with its sinks (store first, then show).

Also what changes a run from outside it: a cancel, and reopening a failed run (retry the calls that
failed, or go on without the failed voices).
"""

import asyncio
import logging
from dataclasses import dataclass

from asgiref.sync import sync_to_async
from django.conf import settings
from django.db import transaction
from django.utils import timezone

from debates import grounding
from debates.budgets import hold
from debates.engine import run as engine
from debates.engine import traced
from debates.engine.context import Prior
from debates.engine.events import (
    ContributionChunk,
    ContributionCited,
    ContributionFinished,
    ContributionQueued,
    ContributionRetrying,
    ContributionStarted,
    Event,
    RoundFinished,
    RunFinished,
    Sink,
)
from debates.engine.spec import RunSpec
from debates.engine.vocabulary import RETIRED, FailurePolicy, Outcome
from debates.lib.unstored import unstored
from debates.live.mailbox import Mailbox
from debates.live.sink import LiveSink
from debates.live.state import Totals
from debates.models import Contribution, Question, Status
from debates.roster.readiness import expected_seconds
from debates.runs import lease, outage
from debates.runs.recorder import Recorder
from debates.runs.spec import RosterGone, freeze, prior_for, seat_panelists, spec_for

log = logging.getLogger(__name__)


class Tee:
    """The recorder, then the live sink: a viewer never sees a result (a contribution, the end) the DB does not have."""

    def __init__(self, *sinks: Sink) -> None:
        self.sinks = sinks

    async def emit(self, event: Event) -> None:
        for sink in self.sinks:
            await sink.emit(event)


class InOrder:
    """Hand events to a sink without holding the engine up, in an order every viewer can trust.

    Storing a contribution (a few SQLite writes) and rendering its fragments take time under load; were
    the engine to wait for both before sending the next voice's request or opening the next round,
    that time would add to every run's critical path. Here the engine hands an event over and
    goes on. A voice's events (its start, chunks, retries, end) form a lane delivered in order, lanes
    side by side, so one voice's chunks never wait behind another's contribution being stored; an event
    about the whole run (phase, round, ledger, end) waits for every lane before it and holds
    back the lanes after it. A lane with nothing ahead delivers at once (live.mailbox): a chunk
    reaches the live sink inside ``emit``. A sink's failure is raised at the next ``emit`` or
    ``drain``.
    """

    def __init__(self, sink: Sink) -> None:
        self.sink = sink
        self.lanes: dict[tuple[int, str], Mailbox[Event]] = {}
        self.barrier: asyncio.Task[None] | None = None  # the last whole-run event's delivery
        self.error: Exception | None = None

    async def emit(self, event: Event) -> None:
        self._raise()
        key = lane_of(event)
        if key is None:
            self.barrier = asyncio.create_task(self._after(event, self.barrier, list(self.lanes.values())))
            self.lanes = {}
            return
        if key not in self.lanes:
            self.lanes[key] = Mailbox(self.deliver, after=self.barrier)
        self.lanes[key].put(event)

    async def drain(self) -> None:
        """Return once the sink has every event emitted so far."""
        lanes, self.lanes = list(self.lanes.values()), {}
        await self._after(None, self.barrier, lanes)
        self._raise()

    async def settle(self) -> None:
        """Wait for every event emitted so far and forget a failure among them: the run is ending
        on a failure already, and another voice's write that failed meanwhile (the same full disk)
        must not stop the run's end from being told and stored."""
        lanes, self.lanes = list(self.lanes.values()), {}
        await self._after(None, self.barrier, lanes)
        if self.error is not None:
            log.warning("another step failed while the run was failing: %r", self.error)
            self.error = None

    def close(self) -> None:
        for lane in self.lanes.values():
            lane.close()

    async def deliver(self, event: Event) -> None:
        if self.error is None:  # after a failure, drop what follows until the engine hears of it
            try:
                await self.sink.emit(event)
            except Exception as exc:
                self.error = exc

    async def _after(self, event: Event | None, barrier: asyncio.Task | None, lanes: list[Mailbox[Event]]) -> None:
        if barrier is not None:
            await asyncio.shield(barrier)
        for lane in lanes:
            await lane.join()
        if event is not None:
            await self.deliver(event)

    def _raise(self) -> None:
        if self.error is not None:
            error, self.error = self.error, None
            raise error


def lane_of(event: Event) -> tuple[int, str] | None:
    """The voice an event is about, or None for an event about the whole run."""
    if isinstance(event, ContributionFinished):
        return event.result.round, event.result.seat
    if isinstance(
        event, ContributionChunk | ContributionCited | ContributionStarted | ContributionQueued | ContributionRetrying
    ):
        return event.round, event.seat
    return None


def start(question_id: int) -> tuple[Question, Totals, tuple[RunSpec, Prior] | Exception] | None:
    """Claim the run and read what it is given and its totals so far, in one hop to the DB thread
    (None: not ours).

    Runs that start together queue their hops on asgiref's one thread: with the claim and the
    spec in two hops, each run's spec waited behind every other run's claim, and its first call
    with it. What reading the spec raises is returned, to end the claimed run as if raised in it."""
    question = lease.claim(question_id)
    if question is None:
        return None
    first = not question.roster  # its first start: nothing is stored yet to replay
    if first:
        freeze(question)
    totals = Totals.stored(question, expected=expected_seconds(question.panel))
    try:
        hold.reserve(question)  # held when it was asked; a retried run holds again, or is refused before its first call
        return question, totals, (spec_for(question), {} if first else prior_for(question_id))
    except Exception as error:
        return question, totals, error


async def execute(question_id: int) -> str | None:
    """Run or resume one question in this process; returns its final status (None: not ours)."""
    started = await sync_to_async(start)(question_id)
    if started is None:
        return None
    question, totals, given = started
    live = LiveSink(question_id, totals)
    sink = InOrder(Tee(Recorder(question_id, seat_panelists(question.roster)), live))
    this = asyncio.current_task()
    assert this is not None, "a run executes inside a task"
    watcher = asyncio.create_task(lease.watch(question_id, this))
    grounder = grounding.SympyGrounder(budget_s=settings.TEOREMA["CHECKS_SECONDS"]) if question.grounding else None
    loop = asyncio.get_running_loop()

    def database_away(away: bool) -> None:  # from the writing thread: the viewers are told on the run's loop
        asyncio.run_coroutine_threadsafe(live.database_away(away), loop)

    unheard = outage.listen(database_away)
    try:
        if isinstance(given, Exception):
            raise given
        spec, prior = given
        if grounder is not None:
            grounder.warm()  # SymPy loads (once per process) beside the first round, not in front of the first check
        with traced.workflow(question_id) as span:
            finished = await engine.run(spec, sink, prior, grounder=grounder, purse=hold.Hold(question))
            span.set_attribute("teorema.status", str(finished.status))
        await sink.drain()  # failing to store the end is a crash like any other
    except asyncio.CancelledError:
        this.uncancel()
        if not await Question.objects.filter(pk=question_id, cancel_requested=True).aexists():
            # Shutting down: free the lease now so another runner resumes the run at once.
            await Question.objects.filter(pk=question_id, lease_owner=lease.OWNER).aupdate(lease_expires=timezone.now())
            raise
        await sink.drain()  # the voices it cut off are stored, with the text they had streamed
        for index in await live.open_rounds():
            await sink.emit(RoundFinished(index, Status.CANCELLED))
        finished = RunFinished(Status.CANCELLED, error="Cancelled by the asker.")
        await sink.emit(finished)
    except (RosterGone, hold.OverBudget) as error:
        finished = RunFinished(Status.FAILED, error=str(error))
        await sink.emit(finished)
    except Exception as error:
        log.exception("run of question %s crashed", question_id)
        await sink.settle()
        why = unstored(error)
        finished = RunFinished(
            Status.FAILED,
            error=f"{why}, so the run stopped; every step completed before is kept."
            if why
            else "Teorema hit an internal error; the details are in the server log.",
        )
        await sink.emit(finished)
    finally:
        watcher.cancel()
        unheard()
        try:
            await sink.drain()
        finally:
            sink.close()
            await live.close()
    return finished.status


def cancel(question_id: int) -> None:
    """Ask the run to stop; whichever process holds it notices within a second."""
    # Not started yet: nothing to stop, it simply never runs.
    Question.objects.filter(pk=question_id, status=Status.QUEUED, lease_owner="").update(
        status=Status.CANCELLED, error="Cancelled by the asker.", finished_at=timezone.now(), reserved=0
    )
    Question.objects.filter(pk=question_id, status__in=lease.RESUMABLE).update(cancel_requested=True)


@dataclass(frozen=True)
class Failure:
    """What a failed run offers: the calls to make again, and whether it may go on without the failed voices."""

    failed: list[Contribution]  # failed or gated out, not yet retried
    stopped: list[Contribution]  # stopped before they finished (another voice failed, or the deadline)
    without: str  # why it cannot go on without the failed voices; "" when it can
    kept: int  # completed contributions a retry reuses

    @property
    def labels(self) -> list[str]:
        return sorted({row.label for row in self.failed})

    @property
    def again(self) -> int:
        """Calls a retry makes again."""
        return len(self.failed) + len(self.stopped)


def failure_of(question: Question) -> Failure:
    """The calls of a failed run that did not complete, and whether going on without them is possible."""
    rows = (
        Contribution.objects.filter(round__question=question)
        .exclude(status=Outcome.DONE)
        .exclude(seat__contains=RETIRED)
        .select_related("round")
    )
    failed = [row for row in rows if row.status != Outcome.CANCELLED]
    stopped = [row for row in rows if row.status == Outcome.CANCELLED]
    policy = question.failure_policy or question.panel.failure_policy
    if not failed:
        without = "no voice failed"
    elif any(not row.seat.startswith("p") for row in failed):
        without = "the synthesis cannot be left out: it can only be written again"
    elif policy != FailurePolicy.STRICT:
        without = f"the panel already goes on without failed voices (its policy is {policy}): retry them instead"
    else:
        without = ""
    kept = Contribution.objects.filter(round__question=question, status=Outcome.DONE).count()
    return Failure(failed, stopped, without, kept)


def reopen(question: Question, without_failed: bool = False) -> str:
    """Queue a failed run again from its stored work; "" once queued, else why it cannot be.

    A retry makes again every call that did not complete (failed, gated out, or stopped before it
    finished) and reuses every completed contribution, as a resume does. Going on without the failed
    voices makes again only the stopped calls and runs the rest as the degrade policy would (a
    stand-in or a drop, disclosed). The earlier tries stay, renamed, so what they cost and how they
    failed stay in every figure.
    """
    with transaction.atomic():
        locked = Question.objects.select_for_update().select_related("panel").get(pk=question.pk)
        if locked.status != Status.FAILED:
            return f"only a failed run can be retried; this one is {locked.get_status_display().lower()}"
        failure = failure_of(locked)
        if without_failed and failure.without:
            return f"it cannot go on without the failed voices: {failure.without}"
        for row in failure.stopped if without_failed else failure.failed + failure.stopped:
            tries = Contribution.objects.filter(round=row.round, seat__startswith=f"{row.seat}{RETIRED}").count()
            Contribution.objects.filter(pk=row.pk).update(seat=f"{row.seat}{RETIRED}{tries + 1}")
        Question.objects.filter(pk=locked.pk).update(
            status=Status.QUEUED,
            error="",
            verdict="",
            phase="",
            finished_at=None,
            cancel_requested=False,
            lease_owner="",
            lease_expires=None,
            **({"failure_policy": FailurePolicy.DEGRADE} if without_failed else {}),
        )
    return ""
