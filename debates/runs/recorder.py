"""Turns engine events into rows: a step is saved when its Finished event arrives.

Nothing per token: a Contribution row is written once, when the contribution completes (or fails),
which is also what makes a resumed run skip it.
"""

import asyncio
import functools

from asgiref.sync import sync_to_async
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from debates.engine.events import (
    ConsensusEvaluated,
    ContributionFinished,
    ContributionResult,
    Event,
    LedgerUpdated,
    PanelChanged,
    PhaseChanged,
    RoundFinished,
    RoundStarted,
    RunFinished,
)
from debates.models import Contribution, Question, Round, Status, Synthesis
from debates.runs import outage

# Events that move the page along: the live state carries them, so they are shown without
# waiting for their row. They are still written in the order they came, before any result after them.
PROGRESS = (PhaseChanged, RoundStarted, RoundFinished, PanelChanged, ConsensusEvaluated, LedgerUpdated)


class Recorder:
    """Writes in event order. A result (a contribution, the end) is stored before ``emit``
    returns, so no viewer is shown one the DB lacks; a run's progress is written behind it: written
    first, a run's phase and round rows held its first words back, queued behind every other
    run's writes in asgiref's one thread.

    What queues while a write is under way goes in the next single hop to that thread: at a
    round's end a run's contributions and its progress rows (round, ledger, phase, the next round) took
    about seven hops, each queued behind every other run's, and the next round's first words
    wait for those contributions."""

    def __init__(self, question_id: int, panelists: dict[str, int | None]) -> None:
        self.question_id = question_id
        self.panelists = panelists  # seat key -> Panelist id, from the frozen roster
        self.rounds: dict[int, int] = {}
        self.questions = Question.objects.filter(pk=question_id)
        self.queued: list[tuple[Event, asyncio.Future[None]]] = []  # not yet handed to the thread
        self.writer: asyncio.Task[None] | None = None
        self.failed: BaseException | None = None  # a progress write's failure, raised at the next emit

    async def emit(self, event: Event) -> None:
        if self.failed is not None:
            failed, self.failed = self.failed, None
            raise failed
        result = isinstance(event, RunFinished) or (isinstance(event, ContributionFinished) and not event.replayed)
        if not (result or isinstance(event, PROGRESS)):
            return  # nothing to store: a chunk, a start, a replayed contribution
        written: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.queued.append((event, written))
        if self.writer is None or self.writer.done():
            self.writer = asyncio.create_task(self._write())
        if result:
            await written
        else:
            written.add_done_callback(self._note)

    async def written(self) -> None:
        """Return once every event emitted so far is written (or failed)."""
        while self.writer is not None and not self.writer.done():
            await asyncio.wait([self.writer])

    async def _write(self) -> None:
        """Hand the thread what is queued, in order, until nothing is; each event's outcome goes
        to its own future (a failed write does not stop the ones after it)."""
        while self.queued:
            batch, self.queued = self.queued, []
            try:
                outcomes = await sync_to_async(self._store_each)([event for event, _ in batch])
            except BaseException:  # cancelled (shutting down): whoever waits is cancelled too
                for _, written in batch:
                    written.cancel()
                raise
            for (_, written), outcome in zip(batch, outcomes, strict=True):
                if written.done():
                    continue  # its emit was cancelled
                if outcome is None:
                    written.set_result(None)
                else:
                    written.set_exception(outcome)

    def _note(self, written: asyncio.Future[None]) -> None:
        if not written.cancelled() and written.exception() is not None:
            self.failed = self.failed or written.exception()

    def _store_each(self, events: list[Event]) -> list[Exception | None]:
        outcomes: list[Exception | None] = []
        for event in events:
            try:
                outage.reconnecting(functools.partial(self.store, event))
            except Exception as exc:
                outcomes.append(exc)
            else:
                outcomes.append(None)
        return outcomes

    def store(self, event: Event) -> None:
        match event:
            case PhaseChanged(phase=phase):
                self.questions.update(phase=phase[:120])
            case RoundStarted(index=index, kind=kind, title=title):
                self.round_id(index, kind, title)
            case ContributionFinished(result=result):
                self._store(self.round_id(result.round, result.kind, result.kind), result)
            case RoundFinished(index=index, status=status):
                Round.objects.filter(question_id=self.question_id, index=index).update(
                    status=status, finished_at=timezone.now()
                )
            case PanelChanged(panel_run=panel_run):
                self.questions.update(panel_run=panel_run)
            case ConsensusEvaluated(consensus=consensus):
                self.questions.update(consensus=consensus)
            case LedgerUpdated(ledger=ledger):
                self.questions.update(ledger=ledger)
            case RunFinished():
                self.finish(event)

    def round_id(self, index: int, kind: str = "", title: str = "") -> int:
        if index not in self.rounds:
            # One statement: the ORM's get-or-create took a read, a savepoint and an insert. A round
            # stored before (a resumed run) is kept as it was; the statement only returns its id.
            [row] = Round.objects.bulk_create(
                [Round(question_id=self.question_id, index=index, kind=kind, title=title)],
                update_conflicts=True,
                unique_fields=["question", "index"],
                update_fields=["index"],
            )
            self.rounds[index] = row.pk
        return self.rounds[index]

    def _store(self, round_id: int, result: ContributionResult) -> None:
        """The contribution and the question's new totals: two statements in one transaction (the ORM's
        get-or-update and a sum over the question's rows took six, and compiling the sum cost
        more than running it). A contribution is stored once: a resumed run replays stored contributions without
        storing them again."""
        # A voice asked for the basis of its change ("p2:basis") is that voice's call.
        panelist = self.panelists.get(result.seat.split(":", 1)[0])
        fields = Contribution.fields_of(result) | {"panelist_id": panelist}
        with transaction.atomic():
            Contribution.objects.bulk_create(
                [Contribution(round_id=round_id, **fields)],
                update_conflicts=True,
                unique_fields=["round", "seat"],
                update_fields=[name for name in fields if name != "seat"],
            )
            self.questions.update(
                calls=F("calls") + int(result.is_call),
                tokens_in=F("tokens_in") + result.tokens_in,
                tokens_out=F("tokens_out") + result.tokens_out,
                cost=F("cost") + result.cost,
            )

    @transaction.atomic
    def finish(self, event: RunFinished) -> None:
        """The synthesis and the question's end in one transaction: never a done question without its
        synthesis, nor a synthesis on a question still running."""
        if event.synthesis:
            Synthesis.objects.update_or_create(
                question_id=self.question_id,
                defaults={
                    "text": event.synthesis,
                    "sections": event.sections,
                    "evidence_strength": event.evidence_strength,
                    "confidence": event.confidence,
                    "stances": event.stances,
                },
            )
        question = self.questions.only("panel_run").get()
        self.questions.update(
            panel_run={**question.panel_run, "reveal": event.reveal},
            status=event.status if event.status in Status else Status.FAILED,
            verdict=event.verdict,
            shaped=event.shaped,
            error=event.error,
            phase="Finished" if event.status != Status.FAILED else "Failed",
            finished_at=timezone.now(),
            lease_owner="",
            lease_expires=None,
            reserved=0,  # its hold on its budgets ends with it: what it spent is its cost
        )
