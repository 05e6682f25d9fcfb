"""A question no budget has room for is refused before anything runs, in the same words on every way in
(the page, the JSON API, /v1, ``manage.py ask``; MCP in tests/integrations/test_budgets_mcp.py), naming
the budget and when it renews; a cost cap that is no amount of dollars is refused in words."""

import datetime
import json
import re
from decimal import Decimal

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse

from debates.budgets import hold
from debates.budgets.models import Budget, Period, Scope
from debates.models import Question
from debates.roster.readiness import PanelOption
from tests.viewer.test_api import bearer

# The offline panel's three voices at $1/$2 per 1M tokens: 6 calls of 2,000 in and 800 out.
EXPECTED = Decimal("0.0216")
DAILY = "Your daily budget of $5.00 has $0.01 left, and this run is expected to cost $0.02; it renews at 00:00 UTC."


@pytest.fixture
def nearly_spent(alice, offline_panel, make_question) -> Budget:
    """Alice's daily $5.00, of which an earlier question today spent $4.99."""
    make_question(alice, offline_panel, cost=Decimal("4.99"))
    return Budget.objects.create(scope=Scope.USER, user=alice, period=Period.DAY, limit=Decimal("5.00"))


def test_the_expected_cost_is_the_ask_pages_estimate(offline_panel):
    assert PanelOption.of(offline_panel).cost == EXPECTED


def test_the_page_refuses_naming_the_budget_and_its_renewal(client, alice, nearly_spent, no_runs):
    client.force_login(alice)
    page = client.post(reverse("debates:ask"), {"text": "Shard or replicate?", "panel": "offline"})
    assert page.status_code == 402
    assert DAILY in page.content.decode().replace("&#x27;", "'")
    assert (Question.objects.count(), no_runs) == (1, [])  # only the earlier question: no row, no run


def test_the_api_refuses_with_402_and_retry_after_until_it_renews(client, alice, nearly_spent, no_runs):
    body = {"text": "Shard or replicate?", "panel": "offline"}
    answer = client.post("/api/questions", json.dumps(body), content_type="application/json", **bearer(alice))
    assert answer.status_code == 402
    assert answer.json()["error"] == DAILY
    assert 0 < int(answer.headers["Retry-After"]) <= 24 * 3600
    assert (Question.objects.count(), no_runs) == (1, [])


def test_the_openai_endpoint_refuses_as_insufficient_quota(client, alice, nearly_spent, no_runs):
    body = {"model": "teorema/offline", "messages": [{"role": "user", "content": "Shard or replicate?"}]}
    answer = client.post("/v1/chat/completions", json.dumps(body), content_type="application/json", **bearer(alice))
    assert answer.status_code == 402
    assert answer.json()["error"]["message"] == DAILY
    assert answer.json()["error"]["code"] == "insufficient_quota"
    assert answer.headers["x-should-retry"] == "false"
    assert (Question.objects.count(), no_runs) == (1, [])


def test_manage_py_ask_refuses_in_the_same_words(alice, nearly_spent):
    with pytest.raises(CommandError, match=re.escape("Your daily budget of $5.00 has $0.01 left")):
        call_command("ask", "Shard or replicate?", "--panel", "offline", "--user", "alice")
    assert Question.objects.count() == 1


def test_the_site_and_the_panel_budgets_cover_the_operator_too(offline_panel):
    Budget.objects.create(scope=Scope.PANEL, panel=offline_panel, period=Period.MONTH, limit=Decimal("0.01"))
    words = "The panel Panel offline's monthly budget of $0.01 has $0.01 left"
    with pytest.raises(CommandError, match=re.escape(words)):
        call_command("ask", "Shard or replicate?", "--panel", "offline")
    assert not Question.objects.exists()


def test_a_running_question_holds_its_share_so_the_next_is_refused(client, alice, offline_panel, no_runs):
    Budget.objects.create(scope=Scope.SITE, period=Period.DAY, limit=Decimal("0.03"))
    body = {"text": "Shard or replicate?", "panel": "offline"}
    first = client.post("/api/questions", json.dumps(body), content_type="application/json", **bearer(alice))
    assert first.status_code == 201
    assert Question.objects.get().reserved == EXPECTED  # held, nothing spent yet
    second = client.post("/api/questions", json.dumps(body), content_type="application/json", **bearer(alice))
    assert second.status_code == 402
    assert second.json()["error"].startswith("The site's daily budget of $0.03 has $0.0084 left")


def test_a_cap_below_the_expected_cost_is_refused_before_the_run(client, alice, offline_panel, no_runs):
    body = {"text": "Shard or replicate?", "panel": "offline", "max_cost": 0.01}
    answer = client.post("/api/questions", json.dumps(body), content_type="application/json", **bearer(alice))
    assert answer.status_code == 402
    assert answer.json()["error"] == (
        "This question's cost cap of $0.01 is below the run's expected cost of $0.02: raise the cap, or leave it empty."
    )
    assert not Question.objects.exists()


@pytest.mark.parametrize(
    ("given", "words"),
    [
        (-1, "A cost cap is at least $0.01"),
        (0, "A cost cap is at least $0.01"),
        ("0.001", "at most 2 decimals"),
        ("abc", "Give the cost cap in dollars, as a number such as 0.50."),
        ("NaN", "Give the cost cap in dollars, as a number such as 0.50."),
        ("Infinity", "Give the cost cap in dollars, as a number such as 0.50."),
        (1e9, "A cost cap is at most $1000"),
        (5000, "A cost cap is at most $1000"),
        (True, "Must be a number of dollars, not true or false."),
        ([1], "Must be a number of dollars, not a list."),
    ],
)
def test_a_wrong_cap_is_refused_in_words_on_the_api(client, alice, offline_panel, no_runs, given, words):
    body = {"text": "Shard or replicate?", "panel": "offline", "max_cost": given}
    answer = client.post("/api/questions", json.dumps(body), content_type="application/json", **bearer(alice))
    assert answer.status_code == 400
    assert words in " ".join(answer.json()["fields"]["max_cost"])
    assert not Question.objects.exists()


@pytest.mark.parametrize(("given", "words"), [("-0.5", "at least $0.01"), ("lots", "as a number such as 0.50")])
def test_a_wrong_cap_is_refused_in_words_on_the_page_and_v1_and_the_terminal(
    client, alice, offline_panel, no_runs, given, words
):
    client.force_login(alice)
    page = client.post(reverse("debates:ask"), {"text": "Shard?", "panel": "offline", "max_cost": given})
    assert page.status_code == 400
    assert words in page.content.decode()
    body = {"model": "teorema/offline", "messages": [{"role": "user", "content": "Shard?"}]}
    v1 = client.post(
        "/v1/chat/completions",
        json.dumps(body | {"teorema": {"max_cost": given}}),
        content_type="application/json",
        **bearer(alice),
    )
    assert v1.status_code == 400
    assert words in v1.json()["error"]["message"]
    assert v1.json()["error"]["param"] == "max_cost"
    with pytest.raises(CommandError, match=re.escape(words)):
        call_command("ask", "Shard?", "--panel", "offline", "--max-cost", given)
    assert not Question.objects.exists()


def test_a_budget_names_one_scope_only(alice, offline_panel):
    with pytest.raises(Exception, match="A user's budget names the user"):
        Budget(scope=Scope.USER, panel=offline_panel, limit=Decimal("1")).full_clean()
    with pytest.raises(Exception, match="The site's budget names no user"):
        Budget(scope=Scope.SITE, user=alice, limit=Decimal("1")).full_clean()
    with pytest.raises(Exception, match=re.escape("greater than or equal to 0.01")):
        Budget(scope=Scope.SITE, limit=Decimal("-1")).full_clean()


def test_a_month_renews_on_the_first_of_the_next_even_in_december():
    budget = Budget(scope=Scope.SITE, period=Period.MONTH, limit=Decimal("1"))
    now = datetime.datetime(2026, 12, 7, 14, 30, tzinfo=datetime.UTC)
    assert budget.period_start(now) == datetime.datetime(2026, 12, 1, tzinfo=datetime.UTC)
    assert budget.renews(now) == datetime.datetime(2027, 1, 1, tzinfo=datetime.UTC)
    limit = hold.Limit("the site's monthly budget", Decimal("1"), Decimal("0.5"), budget.renews(now))
    assert limit.renewal(now) == "it renews on 1 January at 00:00 UTC"
