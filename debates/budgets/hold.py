"""A run's hold on what it may spend: its budgets (the asker's, the panel's, the site's) and the
question's own cost cap.

A question reserves its run's expected cost when it is asked (``reserve``): refused in words, naming
the budget and when it renews, where one has no room. While it runs, the engine asks its purse
(``Hold``) before each refining round to hold what the run has spent, that round and the synthesis
after it; a limit that would be passed stops the run there, cleanly. A question counts against a
budget as the larger of what its calls cost (``Question.cost``, settled after each call) and what
it holds (``Question.reserved``, 0 once it has ended): so spend is counted once, and a hold never
outlives its run.

Race-safe: a hold locks its budgets' rows (``select_for_update``, in pk order) before it reads what
the others use and writes its own, so two runs racing for the last of a budget take turns and the
second sees the first's hold. SQLite, which has no row locks, writes one transaction at a time.
"""

import datetime
from dataclasses import dataclass
from decimal import Decimal

from asgiref.sync import sync_to_async
from django.db import transaction
from django.db.models import Q, QuerySet, Sum
from django.db.models.functions import Greatest
from django.utils import timezone

from debates.budgets.models import Budget, Scope
from debates.models import Question
from debates.roster.estimate import expected

MICRODOLLAR = Decimal("0.000001")  # Question.cost's precision
CENT = Decimal("0.01")


class OverBudget(Exception):
    """A run that no budget or cap has room for; ``retry_after``: seconds until the budget renews."""

    def __init__(self, message: str, retry_after: int = 0) -> None:
        super().__init__(message)
        self.message = message
        self.retry_after = retry_after


@dataclass(frozen=True)
class Limit:
    """One limit on a run: a budget (what the other questions it covers use, when it renews) or the cap."""

    name: str  # "your daily budget", "this question's cost cap"
    amount: Decimal
    used: Decimal = Decimal(0)  # by the other questions it covers, this period
    renews: datetime.datetime | None = None  # None: the question's cap, which never renews

    @property
    def left(self) -> Decimal:
        return max(self.amount - self.used, Decimal(0))

    def renewal(self, now: datetime.datetime) -> str:
        """ "it renews at 00:00 UTC" (tomorrow), "it renews on 1 March at 00:00 UTC"."""
        if self.renews is None:
            return ""
        day = "" if self.renews - now <= datetime.timedelta(days=1) else f" on {self.renews:%-d %B}"
        return f"it renews{day} at 00:00 UTC"

    def refusal(self, expected: Decimal, now: datetime.datetime) -> str:
        """Why a run expected to cost ``expected`` is not started."""
        if self.renews is None:
            return (
                f"{capital(self.name)} of {dollars(self.amount)} is below the run's expected cost of "
                f"{dollars(expected)}: raise the cap, or leave it empty."
            )
        return (
            f"{capital(self.name)} of {dollars(self.amount)} has {dollars(self.left)} left, and this run is "
            f"expected to cost {dollars(expected)}; {self.renewal(now)}."
        )

    def stop(self, total: Decimal, now: datetime.datetime) -> str:
        """Why a running run stops before its next round: spending ``total`` in all would pass this."""
        left = "" if self.renews is None else f", {dollars(self.left)} of it left for this run; {self.renewal(now)}"
        passed = f"{self.name} of {dollars(self.amount)}{left}"
        return f"the run's spend with it (about {dollars(total)}) would pass {passed}"


def capital(words: str) -> str:
    return words[:1].upper() + words[1:]


def dollars(amount: Decimal) -> str:
    """Dollars and cents, or four decimals for an amount under a cent (a call's cost)."""
    return f"${amount:.2f}" if amount == 0 or amount >= CENT else f"${amount:.4f}"


def covering(owner_id: int | None, panel_id: int) -> QuerySet[Budget]:
    """The budgets that cover a question of this asker on this panel (the operator's: no user's)."""
    found = Q(scope=Scope.SITE) | Q(scope=Scope.PANEL, panel_id=panel_id)
    if owner_id is not None:
        found |= Q(scope=Scope.USER, user_id=owner_id)
    return Budget.objects.filter(found).select_related("panel").order_by("pk")


def applies(owner_id: int | None, panel_id: int, max_cost: Decimal | None) -> bool:
    """Whether anything limits such a question's spend (one query, none with a cap)."""
    return max_cost is not None or covering(owner_id, panel_id).exists()


def used(budget: Budget, since: datetime.datetime, other_than: int) -> Decimal:
    """What the questions a budget covers, asked since ``since``, use of it: each its cost or its hold."""
    questions = Question.objects.filter(created_at__gte=since).exclude(pk=other_than)
    if budget.scope == Scope.USER:
        questions = questions.filter(owner_id=budget.user_id)
    elif budget.scope == Scope.PANEL:
        questions = questions.filter(panel=budget.panel)  # read with the budget (covering, the admin list)
    total = questions.aggregate(total=Sum(Greatest("reserved", "cost")))["total"]
    return Decimal(total or 0).quantize(MICRODOLLAR)  # SQLite sums decimals as floats


def limits(question: Question, now: datetime.datetime) -> list[Limit]:
    """Every limit on the question's run, its budgets' rows locked until the transaction ends."""
    found = [
        Limit(budget.name, budget.limit, used(budget, budget.period_start(now), question.pk), budget.renews(now))
        for budget in covering(question.owner_id, question.panel_id).select_for_update(of=("self",))
    ]
    if question.max_cost is not None:
        found.append(Limit("this question's cost cap", question.max_cost))
    return found


def take(question: Question, total: Decimal, now: datetime.datetime) -> Limit | None:
    """Hold ``total`` dollars for the question's run, unless a limit has no room for it: that limit."""
    with transaction.atomic():
        if not (found := limits(question, now)):
            return None
        held = Question.objects.select_for_update().values_list("reserved", flat=True).get(pk=question.pk)
        if total <= held:
            return None
        if short := next((limit for limit in found if total > limit.left), None):
            return short
        Question.objects.filter(pk=question.pk).update(reserved=total.quantize(MICRODOLLAR))
    return None


def reserve(question: Question) -> None:
    """Hold the run's expected cost (the ask page's estimate) before its first call; ``OverBudget``
    names the limit with no room for it and when it renews."""
    if not applies(question.owner_id, question.panel_id, question.max_cost):
        return
    planned, _search = expected(question.panel)
    now = timezone.now()
    if (short := take(question, planned, now)) is not None:
        renews = 0 if short.renews is None else int((short.renews - now).total_seconds())
        raise OverBudget(short.refusal(planned, now), retry_after=renews)


class Hold:
    """The purse the engine asks before each refining round (engine.purse)."""

    def __init__(self, question: Question) -> None:
        self.question = question

    async def holds(self, total: Decimal) -> str:
        now = timezone.now()
        short = await sync_to_async(take)(self.question, total, now)
        return "" if short is None else short.stop(total, now)
