"""Turns engine events into rows: a step is saved when its Finished event arrives.

Nothing per token: a Contribution row is written once, when the contribution completes (or fails),
which is also what makes a resumed run skip it.
"""

import asyncio
from decimal import Decimal

from asgiref.sync import sync_to_async
from django.db import transaction
from django.db.models import Count, F, Q, Sum
from django.utils import timezone

from debates.engine.events import (
    NOT_CALLS,
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

# Events that move the page along: the live state carries them, so they are shown without
# waiting for their row. They are still written in the order they came, before any result after them.
PROGRESS = (PhaseChanged, RoundStarted, RoundFinished, PanelChanged, ConsensusEvaluated, LedgerUpdated)


class Recorder:
    """Writes in event order. A result (a contribution, the end) is stored before ``emit``
    returns, so no viewer is shown one the DB lacks; a run's progress is written behind it. A run's
    first words waited for its phase and round rows, queued behind every other run's writes in
    asgiref's one thread: 0.3-0.8 s with 50 questions submitted at once."""

    def __init__(self, question_id: int, panelists: dict[str, int | None]) -> None:
        self.question_id = question_id
        self.panelists = panelists  # seat key -> Panelist id, from the frozen roster
        self.rounds: dict[int, int] = {}
        self.questions = Question.objects.filter(pk=question_id)
        self.last: asyncio.Task[None] | None = None  # the latest write, which waits for the one before it
        self.failed: BaseException | None = None  # a progress write's failure, raised at the next emit

    async def emit(self, event: Event) -> None:
        if self.failed is not None:
            failed, self.failed = self.failed, None
            raise failed
        result = isinstance(event, RunFinished) or (isinstance(event, ContributionFinished) and not event.replayed)
        if not (result or isinstance(event, PROGRESS)):
            return  # nothing to store: a chunk, a start, a replayed vote
        self.last = asyncio.create_task(self.in_turn(self.last, event))
        if result:
            await self.last
        else:
            self.last.add_done_callback(self._note)

    async def in_turn(self, before: asyncio.Task[None] | None, event: Event) -> None:
        """Store ``event`` once the write before it is done, whether or not that one failed
        (its failure is reported apart)."""
        if before is not None:
            await asyncio.wait([before])
        await self.store(event)

    def _note(self, write: asyncio.Task[None]) -> None:
        if not write.cancelled() and write.exception() is not None:
            self.failed = self.failed or write.exception()

    async def store(self, event: Event) -> None:
        match event:
            case PhaseChanged(phase=phase):
                await self.questions.aupdate(phase=phase[:120])
            case RoundStarted(index=index, kind=kind, title=title):
                await self.round_id(index, kind, title)
            case ContributionFinished(result=result):
                await self.save_contribution(result)
            case RoundFinished(index=index, status=status):
                await Round.objects.filter(question_id=self.question_id, index=index).aupdate(
                    status=status, finished_at=timezone.now()
                )
            case PanelChanged(panel_run=panel_run):
                await self.questions.aupdate(panel_run=panel_run)
            case ConsensusEvaluated(consensus=consensus):
                await self.questions.aupdate(consensus=consensus)
            case LedgerUpdated(ledger=ledger):
                await self.questions.aupdate(ledger=ledger)
            case RunFinished():
                await self.finish(event)

    async def round_id(self, index: int, kind: str = "", title: str = "") -> int:
        if index not in self.rounds:
            row, _ = await Round.objects.aget_or_create(
                question_id=self.question_id, index=index, defaults={"kind": kind, "title": title}
            )
            self.rounds[index] = row.pk
        return self.rounds[index]

    async def save_contribution(self, result: ContributionResult) -> None:
        round_id = await self.round_id(result.round, result.kind, result.kind)
        await sync_to_async(self._store)(round_id, result)

    def _store(self, round_id: int, result: ContributionResult) -> None:
        """The vote and the question's new totals: two statements in one transaction and one
        thread hop (the ORM's get-or-update and a sum over the question's rows took six, and
        compiling the sum cost more than running it). A vote is stored once: a resumed run
        replays stored votes without storing them again."""
        fields = Contribution.fields_of(result) | {"panelist_id": self.panelists.get(result.seat)}
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

    async def finish(self, event: RunFinished) -> None:
        if event.synthesis:
            await Synthesis.objects.aupdate_or_create(
                question_id=self.question_id,
                defaults={
                    "text": event.synthesis,
                    "sections": event.sections,
                    "evidence_strength": event.evidence_strength,
                    "confidence": event.confidence,
                },
            )
        question = await self.questions.only("panel_run").aget()
        await self.questions.aupdate(
            panel_run={**question.panel_run, "reveal": event.reveal},
            status=event.status if event.status in Status else Status.FAILED,
            verdict=event.verdict,
            error=event.error,
            phase="Finished" if event.status != Status.FAILED else "Failed",
            finished_at=timezone.now(),
            lease_owner="",
            lease_expires=None,
        )


def recount(question_id: int) -> None:
    """The question's totals summed again from its rows, after some were removed."""
    totals = Contribution.objects.filter(round__question_id=question_id).aggregate(
        calls=Count("pk", filter=~Q(kind__in=NOT_CALLS)),
        tokens_in=Sum("tokens_in"),
        tokens_out=Sum("tokens_out"),
        cost=Sum("cost"),
    )
    Question.objects.filter(pk=question_id).update(
        calls=totals["calls"] or 0,
        tokens_in=totals["tokens_in"] or 0,
        tokens_out=totals["tokens_out"] or 0,
        cost=totals["cost"] or Decimal("0"),
    )
