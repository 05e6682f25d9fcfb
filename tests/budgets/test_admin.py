"""Budgets are set in the admin, which shows what each has used this period and when it renews."""

from decimal import Decimal

from django.urls import reverse

from debates.budgets.models import Budget, Period, Scope
from debates.runs import execute


def test_the_list_shows_what_each_budget_has_used_held_runs_included(admin_client, alice, offline_panel, make_question):
    make_question(alice, offline_panel, cost=Decimal("0.25"))
    make_question(alice, offline_panel, cost=Decimal("0.10"), reserved=Decimal("0.40"), status="running")
    Budget.objects.create(scope=Scope.USER, user=alice, period=Period.MONTH, limit=Decimal("5.00"))
    page = admin_client.get(reverse("admin:debates_budget_changelist")).content.decode().replace("&#x27;", "'")
    assert "alice's monthly budget of $5.00" in page
    assert "$0.65" in page  # 0.25 spent, and the running one's hold of 0.40 (more than its 0.10 spent)


def test_a_budget_is_made_in_the_admin_and_checked_for_its_scope(admin_client, alice, offline_panel):
    add = reverse("admin:debates_budget_add")
    refused = admin_client.post(add, {"scope": "user", "panel": offline_panel.pk, "period": "day", "limit": "5"})
    assert "A user&#x27;s budget names the user, and no panel." in refused.content.decode()
    made = admin_client.post(add, {"scope": "user", "user": alice.pk, "period": "day", "limit": "5"})
    assert made.status_code == 302
    assert Budget.objects.get().name == "your daily budget"
    site = {"scope": "site", "period": "month", "limit": "50"}
    assert admin_client.post(add, site).status_code == 302
    again = admin_client.post(add, site).content.decode()
    assert "There is such a monthly budget already: change that one." in again


def test_a_cancelled_queued_question_holds_nothing(alice, offline_panel, make_question):
    question = make_question(alice, offline_panel, reserved=Decimal("0.02"))
    execute.cancel(question.pk)
    question.refresh_from_db()
    assert (question.status, question.reserved) == ("cancelled", 0)
