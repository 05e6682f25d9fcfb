"""Running an evaluation: each item a real question through runs.execute, K at a time, resumable.

``start`` finds the unfinished evaluation of the same items on the same panel for the same owner
(so re-running the same command resumes it) or writes a new one with a row per item. ``Runner``
then settles the items not yet scored: an item without a question gets one (created and linked
in one transaction, so a crash never leaves it asked twice); an item whose question is mid-run
resumes it through the question's lease, like a worker taking over a dead one; a finished
question is only scored. Nothing that finished is ever asked again.
"""

import asyncio
import time
from collections.abc import Callable
from typing import Any

from asgiref.sync import sync_to_async
from django.db import transaction
from django.utils import timezone

from debates.evaluation import datasets, scoring
from debates.evaluation.datasets import Dataset
from debates.evaluation.models import Evaluation, EvaluationItem, EvaluationStatus
from debates.evaluation.summary import Totals, totals_of
from debates.models import Panel, Question
from debates.refusal import Kind, Refused
from debates.roster.readiness import problems
from debates.runs import execute

LEASE_POLL = 1.0  # seconds between two looks at a question another process still holds
UNFINISHED = [EvaluationStatus.RUNNING, EvaluationStatus.INTERRUPTED]

ItemDone = Callable[[EvaluationItem, Totals], None]
Note = Callable[[str], None]


def begin(
    source: str, panel: Panel, owner: Any, limit: int | None, concurrency: int = 1, grounding: bool = False
) -> tuple[Evaluation, bool]:
    """Check everything that can fail before money is spent (the data set read whole, the panel able
    to run now), then ``start``: the page's form and ``manage.py evaluate`` both begin here."""
    try:
        dataset = datasets.load(source).limited(limit)
    except datasets.DatasetError as error:
        raise Refused(str(error)) from error
    runnable(panel)
    settings = {"source": source, "limit": limit, "concurrency": concurrency, "grounding": grounding}
    return start(dataset, panel, owner, settings)


def runnable(panel: Panel) -> None:
    """Refuse a panel that cannot run now (the ask form's checks), before anything is stored or spent."""
    if found := problems(panel):
        raise Refused(f"The panel “{panel.name}” cannot run: {'; '.join(found)}.", Kind.CONFLICT)


def start(dataset: Dataset, panel: Panel, owner: Any, settings: dict[str, Any]) -> tuple[Evaluation, bool]:
    """(the evaluation, whether it is an unfinished one resumed) for these items on this panel."""
    fingerprint = dataset.fingerprint(panel.pk, owner.pk if owner else "")
    unfinished = Evaluation.objects.filter(fingerprint=fingerprint, status__in=UNFINISHED).first()
    if unfinished is not None:
        return unfinished, True
    with transaction.atomic():
        evaluation = Evaluation.objects.create(
            dataset=dataset.name,
            fingerprint=fingerprint,
            panel=panel,
            owner=owner,
            settings=settings,
            totals=Totals(len(dataset.items)).as_dict(),
        )
        rows = [
            EvaluationItem(
                evaluation=evaluation,
                index=index,
                item_id=item.id,
                line=item.line,
                text=item.asked,
                answer=item.answer,
                expected=item.expected,
                kind=item.kind,
                options=list(item.options),
            )
            for index, item in enumerate(dataset.items)
        ]
        EvaluationItem.objects.bulk_create(rows)
    return evaluation, False


class Runner:
    """Settles an evaluation's unfinished items, ``concurrency`` at a time; ``item_done`` hears of each."""

    def __init__(
        self, evaluation: Evaluation, concurrency: int = 1, item_done: ItemDone | None = None, note: Note | None = None
    ) -> None:
        self.evaluation = evaluation
        self.concurrency = max(1, concurrency)
        self.item_done = item_done or (lambda _item, _totals: None)
        self.note = note or (lambda _text: None)
        self.started = time.monotonic()  # again when it runs: the wall time counts only running
        self.wall_before = evaluation.wall_ms

    async def run(self) -> Totals:
        """Run to the end; interrupted (Ctrl-C, a cancelled task, an item's error), it says so and re-raises."""
        self.started = time.monotonic()
        evaluations = Evaluation.objects.filter(pk=self.evaluation.pk)
        await evaluations.aupdate(status=EvaluationStatus.RUNNING, updated_at=timezone.now())
        pending = [item async for item in self.evaluation.items.filter(finished_at__isnull=True).order_by("index")]
        slots = asyncio.Semaphore(self.concurrency)

        async def settle(item: EvaluationItem) -> None:
            async with slots:
                await self.settle(item)

        try:
            async with asyncio.TaskGroup() as group:
                for item in pending:
                    group.create_task(settle(item))
        except BaseExceptionGroup as failures:
            await evaluations.aupdate(status=EvaluationStatus.INTERRUPTED, wall_ms=self.wall_ms())
            raise failures.exceptions[0] from None  # one item's failure stopped the others: it is the cause
        except BaseException:
            await evaluations.aupdate(status=EvaluationStatus.INTERRUPTED, wall_ms=self.wall_ms())
            raise
        totals = await sync_to_async(totals_of)(self.evaluation)
        await evaluations.aupdate(
            status=EvaluationStatus.DONE, finished_at=timezone.now(), wall_ms=self.wall_ms(), totals=totals.as_dict()
        )
        return totals

    async def settle(self, item: EvaluationItem) -> None:
        """Ask (or resume, or only score) one item's question, then store its scores."""
        began = time.monotonic()
        question_id = await sync_to_async(self.question_for)(item)
        waiting = False
        while await execute.execute(question_id) is None:
            question = await Question.objects.aget(pk=question_id)
            if question.is_finished:
                break
            if not waiting:
                waiting = True
                self.note(
                    f"item {item.index + 1}: question {question_id} is held by {question.lease_owner}; "
                    "waiting for it to finish or for its lease to lapse"
                )
            await asyncio.sleep(LEASE_POLL)
        totals = await sync_to_async(self.record)(item, question_id, time.monotonic() - began)
        self.item_done(item, totals)

    def question_for(self, item: EvaluationItem) -> int:
        """The item's question: the one it has, or a new one linked to it in the same transaction."""
        with transaction.atomic():
            locked = EvaluationItem.objects.select_for_update().get(pk=item.pk)
            if locked.question_id is None:
                panel = self.evaluation.panel
                locked.question = Question.objects.create(
                    owner=self.evaluation.owner,
                    panel=panel,
                    text=locked.text,
                    options=locked.options,
                    criticality=panel.default_criticality,
                    force_panel=True,
                    grounding=self.evaluation.settings.get("grounding", False),
                    # The web may hold the data set's answers: the panel is measured on what it knows.
                    search=self.evaluation.settings.get("search", False),
                )
                locked.save(update_fields=["question"])
            item.question_id = locked.question_id
            assert locked.question_id is not None, "linked just above"
            return locked.question_id

    def record(self, item: EvaluationItem, question_id: int, seconds: float) -> Totals:
        """Store the item's scores, then the evaluation's totals and wall time so far."""
        question = Question.objects.get(pk=question_id)
        for name, value in scoring.score(item, question).items():
            setattr(item, name, value)
        item.wall_ms += round(seconds * 1000)
        item.finished_at = timezone.now()
        item.save()
        totals = totals_of(self.evaluation)
        Evaluation.objects.filter(pk=self.evaluation.pk).update(
            totals=totals.as_dict(), wall_ms=self.wall_ms(), updated_at=timezone.now()
        )
        return totals

    def wall_ms(self) -> int:
        return self.wall_before + round((time.monotonic() - self.started) * 1000)
