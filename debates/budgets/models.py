"""A budget: at most this many dollars a day or a month, for one user, one panel or the whole site.

Imported by debates.models, so the app registers it; it names Panel by its app label, so this
module never imports debates.models back.
"""

import datetime
from decimal import Decimal

from django.conf import settings as django_settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models

from debates.lib.labelled import Labelled

# A limit, in dollars: a cent at least; over a million is no limit.
MIN_LIMIT, MAX_LIMIT = Decimal("0.01"), Decimal("1000000")


class Scope(Labelled):
    USER = "user", "a user"
    PANEL = "panel", "a panel"
    SITE = "site", "the whole site"


class Period(Labelled):
    DAY = "day", "daily"
    MONTH = "month", "monthly"


class Budget(models.Model):
    """Every question its scope covers counts in the period it was asked in: what its calls cost,
    or, while it runs, the larger of that and what its run holds (budgets.hold)."""

    scope = models.CharField(max_length=8, choices=Scope.choices())
    user = models.ForeignKey(
        django_settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="budgets",
        help_text="The asker it limits (scope: a user).",
    )
    panel = models.ForeignKey(
        "debates.Panel",
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="budgets",
        help_text="The panel it limits (scope: a panel).",
    )
    period = models.CharField(max_length=8, choices=Period.choices(), default=Period.DAY)
    limit = models.DecimalField(
        "limit (USD)",
        max_digits=12,
        decimal_places=2,
        validators=[MinValueValidator(MIN_LIMIT), MaxValueValidator(MAX_LIMIT)],
        help_text="At most this many dollars per period; a run that would pass it is refused before it starts, "
        "or stops before its next round (its synthesis is written from what exists).",
    )

    class Meta:
        ordering = ["pk"]
        constraints = [
            models.UniqueConstraint(fields=["scope", "user", "panel", "period"], name="one_budget_per_scope_period"),
        ]

    def __str__(self) -> str:
        name = f"{self.user}'s {Period(self.period).label} budget" if self.scope == Scope.USER else self.name
        return f"{name} of ${self.limit:.2f}"

    @property
    def name(self) -> str:
        """The budget as its asker is told of it: "your daily budget", "the panel Quick's monthly budget"."""
        period = Period(self.period).label
        if self.scope == Scope.USER:
            return f"your {period} budget"
        if self.scope == Scope.PANEL:
            return f"the panel {self.panel.name}'s {period} budget" if self.panel else f"a panel's {period} budget"
        return f"the site's {period} budget"

    def clean(self) -> None:
        if self.scope == Scope.USER and (self.user is None or self.panel is not None):
            raise ValidationError("A user's budget names the user, and no panel.")
        if self.scope == Scope.PANEL and (self.panel is None or self.user is not None):
            raise ValidationError("A panel's budget names the panel, and no user.")
        if self.scope == Scope.SITE and (self.user is not None or self.panel is not None):
            raise ValidationError("The site's budget names no user and no panel.")
        same = Budget.objects.filter(scope=self.scope, user=self.user, panel=self.panel, period=self.period)
        if same.exclude(pk=self.pk).exists():  # the constraint cannot see two site budgets: NULLs differ
            raise ValidationError(f"There is such a {Period(self.period).label} budget already: change that one.")

    def period_start(self, now: datetime.datetime) -> datetime.datetime:
        """When the period holding ``now`` began, in UTC: today's midnight, or the month's first day."""
        day = now.astimezone(datetime.UTC).replace(hour=0, minute=0, second=0, microsecond=0)
        return day if self.period == Period.DAY else day.replace(day=1)

    def renews(self, now: datetime.datetime) -> datetime.datetime:
        """When the period holding ``now`` ends and the budget is whole again."""
        start = self.period_start(now)
        if self.period == Period.DAY:
            return start + datetime.timedelta(days=1)
        return start.replace(year=start.year + start.month // 12, month=start.month % 12 + 1)
