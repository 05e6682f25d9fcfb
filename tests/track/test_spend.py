"""The spend report (the admin's page and ``GET /api/spend``): the stored calls' cost and tokens per
user, panel, provider or model, per day or month, to staff only; calls a subscription paid for are
counted apart, never priced; a wrong parameter is a 400 naming it."""

from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from debates.models import Contribution, Panelist, Round
from debates.track import svg
from tests.fakes.roster import make_panel, make_question
from tests.test_metrics import token_of

pytestmark = pytest.mark.django_db


@pytest.fixture
def spending(alice, bob):
    """Alice's run today (two paid calls, one on a CLI's subscription), Bob's two days ago, an old
    call 40 days ago, and a SymPy check (no call)."""
    panel = make_panel("http://127.0.0.1:9/v1", voices=3)
    now = timezone.now()
    alpha, beta, gamma = (Panelist.objects.get(name=f"{n} house") for n in ("Alpha", "Beta", "Gamma"))

    def run(owner, when, calls):
        question = make_question(panel, owner=owner, status="done")
        blind = Round.objects.create(question=question, index=0, kind="answer", title="Blind answers")
        for seat, (panelist, cost, subscription) in zip("abc", calls, strict=False):
            Contribution.objects.create(
                round=blind,
                seat=seat,
                label=seat.upper(),
                panelist=panelist,
                kind="answer",
                status="done",
                tokens_in=100,
                tokens_out=50,
                cost=Decimal(cost),
                on_subscription=subscription,
                created_at=when,
            )
        return blind

    blind = run(alice, now, [(alpha, "0.0100", False), (beta, "0.0250", False), (gamma, "0", True)])
    Contribution.objects.create(
        round=blind, seat="checks", label="SymPy", kind="check", status="done", ledger={"checks": []}, created_at=now
    )
    run(bob, now - timedelta(days=2), [(alpha, "0.0400", False)])
    run(bob, now - timedelta(days=40), [(beta, "1.0000", False)])
    return panel


def spend(client, staff, **params):
    return client.get("/api/spend", params, HTTP_AUTHORIZATION=token_of(staff))


def test_spend_by_user_per_day_counts_the_last_30_days(spending, client, staff):
    found = spend(client, staff, by="user").json()
    assert found["by"] == "user"
    assert found["period"] == "day"
    assert found["currency"] == "USD"
    totals = {t["key"]: t for t in found["totals"]}
    assert set(totals) == {"alice", "bob"}  # Bob's call of 40 days ago is before the range
    assert totals["alice"]["cost"] == "0.035000"
    assert totals["alice"]["calls"] == 3  # the SymPy check is no call
    assert (totals["alice"]["subscription_calls"], totals["alice"]["subscription_tokens"]) == (1, 150)
    assert totals["bob"]["cost"] == "0.040000"
    assert found["total"]["cost"] == "0.075000"
    today = timezone.localdate().isoformat()
    assert [(r["period"], r["key"]) for r in found["rows"]][-1] == (today, "alice")
    assert len(found["rows"]) == 2


def test_spend_by_model_per_month_since_a_date(spending, client, staff):
    since = (timezone.localdate() - timedelta(days=60)).isoformat()
    found = spend(client, staff, by="model", period="month", since=since).json()
    totals = {t["key"]: t["cost"] for t in found["totals"]}
    assert totals == {"model-beta": "1.025000", "model-alpha": "0.050000", "model-gamma": "0.000000"}
    assert found["totals"][0]["key"] == "model-beta"  # the costliest first
    assert all(len(r["period"]) == 10 and r["period"].endswith("-01") for r in found["rows"])


@pytest.mark.parametrize(("by", "key"), [("panel", "Panel house"), ("provider", "Fake house")])
def test_spend_by_panel_and_by_provider(spending, client, staff, by, key):
    found = spend(client, staff, by=by).json()
    assert [t["key"] for t in found["totals"]] == [key]
    assert found["totals"][0]["cost"] == "0.075000"


@pytest.mark.parametrize(
    ("params", "field", "words"),
    [
        ({"by": "team"}, "by", "Must be one of user, panel, provider, model, not 'team'."),
        ({"period": "week"}, "period", "Must be one of day, month, not 'week'."),
        ({"since": "07/12/2026"}, "since", "Must be a date as YYYY-MM-DD, not '07/12/2026'."),
        ({"since": "2026-02-30"}, "since", "Must be a date as YYYY-MM-DD, not '2026-02-30'."),
        ({"since": "2999-01-01"}, "since", "is after today"),
        ({"since": "2001-01-01", "period": "day"}, "since", "use period=month for a longer range"),
        ({"until": "2026-12-01"}, "until", "Unknown parameter: the parameters are by, period, since."),
    ],
)
def test_a_wrong_parameter_is_a_400_naming_it(client, staff, params, field, words):
    response = spend(client, staff, **params)
    assert response.status_code == 400
    body = response.json()
    assert body["error"] == "The spend report was not made: see the parameters at fault."
    assert words in " ".join(body["fields"][field])


def test_spend_is_for_staff_only(client, alice, staff):
    assert client.get("/api/spend").status_code == 401
    refused = client.get("/api/spend", HTTP_AUTHORIZATION=token_of(alice))
    assert refused.status_code == 403
    assert refused.json()["error"] == "Only staff may read the spend: it names every user's."
    client.force_login(alice)
    assert client.get("/api/spend").status_code == 403
    client.force_login(staff)  # a staff session reads it too, as the admin's page links it
    assert client.get("/api/spend").status_code == 200


def test_the_admin_page_shows_the_table_and_the_chart(spending, client, staff):
    client.force_login(staff)
    page = client.get("/admin/spend/", {"by": "user"}).content.decode()
    assert '<svg class="chart"' in page
    assert "series-0" in page
    assert "<title>alice, " in page  # each bar says whose spend it is
    assert "$0.035000" in page
    assert "on your subscription" in page


def test_the_admin_page_says_what_is_wrong_with_a_parameter(client, staff):
    client.force_login(staff)
    response = client.get("/admin/spend/", {"period": "week"})
    assert response.status_code == 400
    assert "Must be one of day, month, not &#x27;week&#x27;." in response.content.decode()


def test_the_admin_page_is_for_staff(client, alice):
    client.force_login(alice)
    assert client.get("/admin/spend/").status_code == 302  # to the admin's sign-in


def test_the_chart_stacks_the_five_costliest_and_the_others_together():
    keys = [f"user-{n}" for n in range(8)]  # costliest first, as the report orders them
    cost = {(0, key): 8.0 - n for n, key in enumerate(keys)} | {(1, "user-7"): 0.5}
    drawn = svg.spend_over_time(["Dec 6", "Dec 7"], keys, cost)
    assert drawn.count('class="bar series-') == 6 + 1  # five keys and the others on Dec 6; one key on Dec 7
    assert "<title>others, Dec 6: $" in drawn
    assert 'class="bar series-5"' in drawn  # the others' colour


def test_a_range_with_nothing_spent_says_so():
    assert "Nothing was spent in this range." in svg.spend_over_time(["Dec 7"], [], {})


def test_the_admin_index_leads_to_the_spend_page(client, staff):
    client.force_login(staff)
    assert 'href="/admin/spend/"' in client.get("/admin/").content.decode()
