"""The admin's spend page in a real browser, on a laptop and on a phone: the chart fits and its
labels stay legible, the tables scroll inside themselves, never the page; nothing breaks the CSP."""

import subprocess
import sys

import pytest

from tests.browser.conftest import ROOT

pytestmark = pytest.mark.browser
LAPTOP = {"width": 1400, "height": 900}
PHONE = {"width": 390, "height": 844}
NO_SIDEWAYS_SCROLL = "() => document.documentElement.scrollWidth <= window.innerWidth"
# Three weeks of calls by Alice and Bob on the seeded panel, and a CLI call on a subscription.
SPENDING = """
from datetime import timedelta
from decimal import Decimal
from django.contrib.auth import get_user_model
from django.utils import timezone
from debates.models import Contribution, Panel, Question, Round
users = get_user_model().objects
users.create_user("treasurer", password="pw-treasurer-123", is_staff=True)
panel = Panel.objects.get(slug="house")
now = timezone.now()
for day in range(21):
    for owner in ("alice", "bob"):
        question = Question.objects.create(panel=panel, text="Spent?", owner=users.get(username=owner), status="done")
        blind = Round.objects.create(question=question, index=0, kind="answer", title="Blind answers")
        for seat, panelist in zip("abc", panel.roster()):
            Contribution.objects.create(
                round=blind, seat=seat, label=seat.upper(), panelist=panelist, kind="answer", status="done",
                tokens_in=2000, tokens_out=800, cost=Decimal("0.0028") * (1 + day % 5),
                on_subscription=seat == "c" and day == 0,
                created_at=now - timedelta(days=day),
            )
"""


@pytest.fixture
def treasurer(app_url, app_env, signed_in):
    subprocess.run(
        [sys.executable, str(ROOT / "manage.py"), "shell", "-c", SPENDING], cwd=ROOT, env=app_env, check=True
    )
    return signed_in("treasurer")


def test_the_spend_page_reads_on_a_laptop_and_a_phone(treasurer):
    page = treasurer
    failed: list[str] = []
    page.on("response", lambda r: r.status >= 400 and failed.append(f"{r.status} {r.url}"))
    for viewport in (LAPTOP, PHONE):
        page.set_viewport_size(viewport)
        page.goto("/admin/spend/?by=user&period=day")
        chart = page.locator(".spend-chart svg.chart")
        assert chart.locator("rect.bar").count() == 2 * 21  # a bar for each of the two users each day
        box = chart.bounding_box()
        assert box is not None
        assert box["width"] <= viewport["width"]
        assert box["height"] >= 200  # a chart, not a sliver
        tick = chart.locator("text.tick").first.bounding_box()
        assert tick is not None
        assert tick["height"] >= 10  # the axis labels stay legible at 390 px
        assert page.evaluate(NO_SIDEWAYS_SCROLL), f"the spend page scrolls sideways at {viewport['width']} px"
        totals = page.inner_text("#spend-totals")
        assert "alice" in totals
        assert "bob" in totals
        assert page.locator("#spend-rows tbody tr").count() == 2 * 21
    page.select_option("#spend-by", "model")
    page.select_option("#spend-period", "month")
    with page.expect_navigation():
        page.click(".spend-filter button[type=submit]")
    assert "model-alpha" in page.inner_text("#spend-totals")
    page.goto("/admin/spend/?period=week")
    assert "Must be one of day, month, not 'week'." in page.inner_text("#content-main")
    assert page.evaluate("() => window.__csp") == []
    assert failed == [f"400 {page.url}"]  # the refused parameter's page, and nothing it loads
