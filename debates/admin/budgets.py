"""Budgets in the admin: who may spend what, per day or month, and how much of it is used now."""

from django.contrib import admin
from django.utils import timezone

from debates.budgets import hold
from debates.models import Budget


class BudgetAdmin(admin.ModelAdmin):
    """A budget for a user, a panel or the site; the list shows what this period has used of each."""

    list_display = ["__str__", "scope", "period", "limit", "used_now", "renews_at"]
    list_filter = ["scope", "period"]
    list_select_related = ["user", "panel"]
    autocomplete_fields = ["user"]
    fields = ["scope", "user", "panel", "period", "limit"]

    @admin.display(description="used this period (USD)")
    def used_now(self, budget: Budget) -> str:
        """Spent by the questions it covers, and held by those still running (budgets.hold)."""
        return hold.dollars(hold.used(budget, budget.period_start(timezone.now()), other_than=0))

    @admin.display(description="renews (UTC)")
    def renews_at(self, budget: Budget) -> str:
        return f"{budget.renews(timezone.now()):%Y-%m-%d %H:%M}"
