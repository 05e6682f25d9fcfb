"""What the calls cost, per user, panel, provider or model, per day or month: the admin's spend page
and ``GET /api/spend`` (docs/api.md). ``spent`` is the one aggregate of stored calls, which
``/metrics`` reads too.

The figures are the contributions' own (the cost each call was billed, its tokens), so they agree
with the question pages. A CLI voice paid for by its login's plan has no cost: its calls and tokens
are counted apart ("on your subscription"), never priced.
"""

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from decimal import Decimal

from django.db.models import Count, F, Q, QuerySet, Sum
from django.db.models.functions import TruncDay, TruncMonth
from django.utils import timezone

from debates.engine.vocabulary import NOT_CALLS
from debates.models import Contribution
from debates.refusal import Kind, Refused

PROVIDER, MODEL = "panelist__provider__name", "panelist__model"
BY = {
    "user": "round__question__owner__username",
    "panel": "round__question__panel__name",
    "provider": PROVIDER,
    "model": MODEL,
}
PERIODS = {"day": TruncDay, "month": TruncMonth}
DAYS_SHOWN = 30  # since, when not asked: the last 30 days, or (by month) the last 12 months
MAX_DAYS = 366  # by day, at most a year: a longer range is read by month
NOBODY = "(nobody)"  # a call whose question has no owner, or whose panelist was deleted since
MICRODOLLAR = Decimal("0.000001")
PARAMETERS = ("by", "period", "since")


def provider_calls() -> QuerySet[Contribution]:
    """The contributions that were calls to a provider: SymPy's steps (grounding, checks) are none."""
    return Contribution.objects.exclude(kind__in=NOT_CALLS)


def spent(calls: QuerySet[Contribution], *by: str) -> QuerySet:
    """The calls grouped by ``by`` (field paths), each group's calls, tokens and cost, and what of
    them a subscription paid for: one query."""
    paid_by_plan = Q(on_subscription=True)
    return (
        calls.values(*by)
        .annotate(  # the sums of a field before the aggregate that takes its name
            subscription_calls=Count("id", filter=paid_by_plan),
            subscription_tokens=Sum(F("tokens_in") + F("tokens_out"), filter=paid_by_plan),
            n=Count("id"),
            tokens_in=Sum("tokens_in"),
            tokens_out=Sum("tokens_out"),
            cost=Sum("cost"),
        )
        .order_by()
    )


@dataclass(frozen=True)
class Asked:
    """What a reader asked for: the grouping, the period, the first day."""

    by: str
    period: str
    since: date
    until: date  # today, the last day counted

    def tick(self, day: date) -> str:
        """A period as the chart names it, short: Dec 7, or Dec 2026 by month."""
        return f"{day:%b} {day.day}" if self.period == "day" else f"{day:%b %Y}"

    @property
    def calendar(self) -> list[date]:
        """Every period of the range, spent in or not (the chart shows the days nothing was spent)."""
        if self.period == "day":
            return [self.since + timedelta(days=n) for n in range((self.until - self.since).days + 1)]
        months = (self.until.year - self.since.year) * 12 + self.until.month - self.since.month
        first = self.since.year * 12 + self.since.month - 1
        return [date((first + n) // 12, (first + n) % 12 + 1, 1) for n in range(months + 1)]


def asked(params: Mapping[str, str], today: date | None = None) -> Asked:
    """The parameters read, or ``Refused`` naming each one at fault and what it may be."""
    today = today or timezone.localdate()
    wrong: dict[str, list[str]] = {
        name: [f"Unknown parameter: the parameters are {', '.join(PARAMETERS)}."]
        for name in params
        if name not in PARAMETERS
    }
    by, period = params.get("by") or "provider", params.get("period") or "day"
    if by not in BY:
        wrong["by"] = [f"Must be one of {', '.join(BY)}, not {by!r}."]
    if period not in PERIODS:
        wrong["period"] = [f"Must be one of {', '.join(PERIODS)}, not {period!r}."]
    since = default_since(period, today)
    if written := params.get("since"):
        try:
            since = date.fromisoformat(written)
        except ValueError:
            wrong["since"] = [f"Must be a date as YYYY-MM-DD, not {written!r}."]
        else:
            if since > today:
                wrong["since"] = [f"{since} is after today ({today}): nothing was spent yet."]
            elif period == "day" and (today - since).days >= MAX_DAYS:
                wrong["since"] = [f"By day, at most {MAX_DAYS} days back: use period=month for a longer range."]
    if wrong:
        raise Refused("The spend report was not made: see the parameters at fault.", Kind.INVALID, wrong)
    return Asked(by, period, since, today)


def default_since(period: str, today: date) -> date:
    if period == "month":
        first = today.replace(day=1)
        return first.replace(year=first.year - 1, month=first.month + 1) if first.month < 12 else first.replace(month=1)
    return today - timedelta(days=DAYS_SHOWN - 1)


@dataclass(frozen=True)
class Spend:
    """One key's spend in one period (or, as a total, over the whole range: ``period`` None)."""

    key: str
    period: date | None
    calls: int
    tokens_in: int
    tokens_out: int
    cost: Decimal
    subscription_calls: int
    subscription_tokens: int

    def as_dict(self) -> dict:
        return {
            "key": self.key,
            **({"period": self.period.isoformat()} if self.period else {}),
            "calls": self.calls,
            "tokens_in": self.tokens_in,
            "tokens_out": self.tokens_out,
            "cost": str(self.cost),
            "subscription_calls": self.subscription_calls,
            "subscription_tokens": self.subscription_tokens,
        }


@dataclass(frozen=True)
class Report:
    """Spend per key and period, over the range asked, with each key's total."""

    asked: Asked
    rows: list[Spend]  # by period, then by cost (highest first)
    totals: list[Spend]  # one per key, highest cost first

    @property
    def total(self) -> Spend:
        return summed("all", self.totals)

    def as_dict(self) -> dict:
        return {
            "by": self.asked.by,
            "period": self.asked.period,
            "since": self.asked.since.isoformat(),
            "currency": "USD",
            "rows": [row.as_dict() for row in self.rows],
            "totals": [row.as_dict() for row in self.totals],
            "total": self.total.as_dict(),
        }


def report(question: Asked) -> Report:
    """The spend asked for, from the stored calls."""
    start = timezone.make_aware(datetime.combine(question.since, datetime.min.time()))
    calls = provider_calls().filter(created_at__gte=start)
    field = BY[question.by]
    grouped = spent(calls.annotate(when=PERIODS[question.period]("created_at")), "when", field)
    rows = []
    for row in grouped:
        when = row["when"]
        rows.append(
            Spend(
                row[field] or NOBODY,
                when.date() if isinstance(when, datetime) else when,
                row["n"],
                row["tokens_in"] or 0,
                row["tokens_out"] or 0,
                Decimal(row["cost"] or 0).quantize(MICRODOLLAR),  # SQLite sums decimals as floats
                row["subscription_calls"],
                row["subscription_tokens"] or 0,
            )
        )
    rows.sort(key=lambda r: (r.period or date.min, -r.cost, r.key))
    keys = dict.fromkeys(r.key for r in rows)
    totals = [summed(key, [r for r in rows if r.key == key]) for key in keys]
    return Report(question, rows, sorted(totals, key=lambda t: (-t.cost, t.key)))


def summed(key: str, spends: list[Spend]) -> Spend:
    """Spends as one, over all their periods."""
    return Spend(
        key,
        None,
        sum(s.calls for s in spends),
        sum(s.tokens_in for s in spends),
        sum(s.tokens_out for s in spends),
        sum((s.cost for s in spends), Decimal(0)),
        sum(s.subscription_calls for s in spends),
        sum(s.subscription_tokens for s in spends),
    )
