"""Starting, resuming and cancelling runs: the Django side of the engine.

A run belongs to whoever holds its lease (``Question.lease_owner`` until ``lease_expires``);
the holder renews it while working, so a run whose process died is picked up again once
the lease lapses and continues from its stored votes.
"""

import asyncio
import logging
import os
import socket
import uuid
from dataclasses import replace
from datetime import timedelta

from asgiref.sync import sync_to_async
from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from debates import grounding, providers
from debates.engine import run as engine
from debates.engine.dossier import shuffled_labels
from debates.engine.events import Event, RunFinished, VoteResult
from debates.engine.spec import RunSpec, Seat
from debates.models import Panelist, Question, Round, Status, Vote
from debates.recorder import Recorder

log = logging.getLogger(__name__)

LEASE = timedelta(seconds=settings.TEOREMA["LEASE_SECONDS"])
RENEW_EVERY = LEASE.total_seconds() / 4
CANCEL_POLL = 1.0
OWNER = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
RESUMABLE = [Status.QUEUED, Status.RUNNING]


class RosterError(Exception):
    """The frozen roster cannot be run any more (a panelist was deleted)."""


def freeze_roster(question: Question) -> list[dict]:
    """The voices of this run with shuffled labels; later roster edits do not change it."""
    panel = question.panel
    roster = panel.roster()
    entries = [
        _entry(f"p{i}", label, panelist)
        for i, (panelist, label) in enumerate(zip(roster, shuffled_labels(len(roster)), strict=True), 1)
    ]
    entries.append(_entry("moderator", "Moderator", panel.moderator))
    if panel.tie_breaker:
        entries.append(_entry("tie_breaker", "Tie-breaker", panel.tie_breaker))
    if panel.fallback_moderator:
        entries.append(_entry("fallback_moderator", "Moderator (stand-in)", panel.fallback_moderator))
    return entries


def _entry(seat: str, label: str, panelist: Panelist) -> dict:
    return {
        "seat": seat,
        "label": label,
        "panelist_id": panelist.pk,
        "name": panelist.name,
        "model": panelist.model,
        "family": panelist.family,
        "provider": panelist.provider.name,
        "method": panelist.method,
    }


def spec_for(question: Question) -> RunSpec:
    """Rebuild the engine's input from the frozen roster (keys are read fresh: they may rotate)."""
    panelists = Panelist.objects.select_related("provider").in_bulk([e["panelist_id"] for e in question.roster])
    seats = {}
    for entry in question.roster:
        panelist = panelists.get(entry["panelist_id"])
        if panelist is None:
            raise RosterError(f"{entry['label']} ({entry['name']}) was deleted from the roster; the run cannot go on.")
        voice = replace(providers.voice_from_panelist(panelist), model=entry["model"])
        seats[entry["seat"]] = Seat(
            entry["seat"], entry["label"], voice, entry["name"], entry["family"], entry["provider"], entry["method"]
        )
    panel = question.panel
    return RunSpec(
        question=question.text,
        context=question.context,
        protocol=panel.protocol,
        seats=tuple(s for k, s in seats.items() if k.startswith("p")),
        moderator=seats["moderator"],
        tie_breaker=seats.get("tie_breaker"),
        fallback_moderator=seats.get("fallback_moderator"),
        options=tuple(question.options or panel.options),
        criticality=question.criticality,
        force_panel=question.force_panel,
        rounds=panel.rounds,
        merge_critique=panel.merge_critique,
        revote_on_dissent=panel.revote_on_dissent,
        failure_policy=panel.failure_policy,
        quorum=panel.quorum,
        similarity=settings.TEOREMA["VOTE_SIMILARITY"],
    )


def prior_for(question_id: int) -> dict[tuple[int, str], VoteResult]:
    """The stored contributions of a run, as the engine replays them on resume."""
    votes = Vote.objects.filter(round__question_id=question_id).select_related("round")
    return {(vote.round.index, vote.seat): vote.as_result() for vote in votes}


def _claim(question_id: int) -> Question | None:
    """Take the run's lease if it is free or lapsed; None when someone else holds it."""
    now = timezone.now()
    claimed = (
        Question.objects.filter(pk=question_id, status__in=RESUMABLE)
        .filter(Q(lease_expires__isnull=True) | Q(lease_expires__lt=now))
        .update(status=Status.RUNNING, lease_owner=OWNER, lease_expires=now + LEASE)
    )
    if not claimed:
        return None
    question = Question.objects.select_related(
        "panel__moderator", "panel__tie_breaker", "panel__fallback_moderator"
    ).get(pk=question_id)
    if not question.roster:
        question.roster = freeze_roster(question)
        question.started_at = now
        question.save(update_fields=["roster", "started_at"])
    return question


class Tee:
    """Store first, then broadcast: a viewer never sees a step the DB does not have."""

    def __init__(self, *sinks) -> None:
        self.sinks = sinks

    async def emit(self, event: Event) -> None:
        for sink in self.sinks:
            await sink.emit(event)


async def execute(question_id: int) -> str | None:
    """Run or resume one question in this process; returns its final status (None: not ours)."""
    from debates.live import LiveSink  # the viewer's sink; imported late to keep the engine import light

    question = await sync_to_async(_claim)(question_id)
    if question is None:
        return None
    live = LiveSink(question_id)
    sink = Tee(Recorder(question_id, {e["seat"]: e["panelist_id"] for e in question.roster}), live)
    watcher = asyncio.create_task(_watch(question_id, asyncio.current_task()))
    try:
        spec = await sync_to_async(spec_for)(question)
        prior = await sync_to_async(prior_for)(question_id)
        finished = await engine.run(spec, sink, prior, grounder=SympyGrounder())
    except asyncio.CancelledError:
        asyncio.current_task().uncancel()
        if not await Question.objects.filter(pk=question_id, cancel_requested=True).aexists():
            # Shutting down: free the lease now so another runner resumes the run at once.
            await Question.objects.filter(pk=question_id, lease_owner=OWNER).aupdate(lease_expires=timezone.now())
            raise
        finished = RunFinished(Status.CANCELLED, error="Cancelled by the asker.")
        await sink.emit(finished)
    except RosterError as error:
        finished = RunFinished(Status.FAILED, error=str(error))
        await sink.emit(finished)
    except Exception:
        log.exception("run of question %s crashed", question_id)
        finished = RunFinished(Status.FAILED, error="Teorema hit an internal error; the details are in the server log.")
        await sink.emit(finished)
    finally:
        watcher.cancel()
        await live.close()
    return finished.status


async def _watch(question_id: int, task: asyncio.Task) -> None:
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


class SympyGrounder:
    """The engine's Grounder: SymPy before the panel, and the claims that contradict its facts."""

    def __init__(self) -> None:
        self.facts: tuple = ()

    async def ground(self, question: str, context: str) -> str:
        grounded = await grounding.ground(question, context)
        self.facts = grounded.facts
        return grounded.as_brief()

    def contradicts(self, text: str) -> list[str]:
        return grounding.contradictions(self.facts, text)


def submit(question: Question) -> None:
    """Enqueue a question's run: on this server's loop (local mode) or for a worker (server mode)."""
    from debates.tasks import run_question

    run_question.enqueue(question.pk)


def cancel(question_id: int) -> None:
    """Ask the run to stop; whichever process holds it notices within a second."""
    # Not started yet: nothing to stop, it simply never runs.
    Question.objects.filter(pk=question_id, status=Status.QUEUED, lease_owner="").update(
        status=Status.CANCELLED, error="Cancelled by the asker.", finished_at=timezone.now()
    )
    Question.objects.filter(pk=question_id, status__in=RESUMABLE).update(cancel_requested=True)


def reopen_synthesis(question: Question) -> bool:
    """Queue a run whose synthesis failed to write it again from the stored panel work.

    The failed synthesis calls are removed; resuming replays every stored contribution and calls
    only the moderator. False when there is no failed synthesis to write again.
    """
    with transaction.atomic():
        locked = Question.objects.select_for_update().get(pk=question.pk)
        if not locked.synthesis_failed:
            return False
        Round.objects.filter(question=locked, kind="synthesis").delete()
        Question.objects.filter(pk=locked.pk).update(
            status=Status.QUEUED, error="", verdict="", phase="", finished_at=None, cancel_requested=False,
            lease_owner="", lease_expires=None,
        )  # fmt: skip
    return True


def retry_synthesis(question: Question) -> bool:
    """reopen_synthesis, then run it (on this server's loop or a worker's)."""
    if not reopen_synthesis(question):
        return False
    submit(question)
    return True


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


async def resume_interrupted() -> list[int]:
    """Enqueue every run left unfinished by a process that died (its lease lapsed)."""
    from debates.tasks import run_question

    ids = await sync_to_async(resumable_ids)()
    for question_id in ids:
        await run_question.aenqueue(question_id)
    return ids


class ResumeOnFirstCall:
    """ASGI wrapper: the first connection to a fresh server process resumes interrupted runs.

    Daphne has no startup hook, and the runs must live on its event loop (the in-memory
    channel layer is bound to it), so the first call is the earliest safe moment.
    """

    def __init__(self, app) -> None:
        self.app = app
        self.started = False
        self.second_look: asyncio.Task | None = None

    async def __call__(self, scope, receive, send) -> None:
        if not self.started and scope["type"] in {"http", "websocket"}:
            self.started = True
            if settings.RUN_IN_PROCESS:
                await resume_interrupted()
                # A run of a process that died just before this one started is still leased.
                self.second_look = asyncio.create_task(self._resume_once_leases_lapse())
        await self.app(scope, receive, send)

    async def _resume_once_leases_lapse(self) -> None:
        await asyncio.sleep(LEASE.total_seconds())
        await resume_interrupted()
