"""A run that spends faster than expected stops before the round that would pass its cap or a budget:
the contributions it made are kept and billed once, the moderator writes the synthesis from them, told
why the panel stopped, and the page says so. End to end: the fake provider server bills each voice's
call by its usage at the roster's prices ($1 in, $2 out per 1M tokens)."""

import re
from decimal import Decimal

import pytest
from asgiref.sync import sync_to_async
from django.db.models import Sum

from debates import service
from debates.budgets import hold
from debates.budgets.models import Budget, Period, Scope
from debates.models import Contribution, Question, Source, Status
from debates.runs import execute
from tests.fakes.answers import SYNTHESIS
from tests.fakes.provider_server import Script
from tests.fakes.roster import make_panel, make_question

pytestmark = pytest.mark.django_db(transaction=True)
VOICES = ("model-alpha", "model-beta", "model-gamma")
CALL = Decimal("0.01")  # 8,000 tokens in at $1/1M and 1,000 out at $2/1M: nearly three times a typical call
STOPPED = re.compile(r"did not run: the run's spend with it \(about \$0\.06\) would pass (.+)\.$")


@pytest.fixture
def pricey(fake_provider):
    """Three voices whose every call bills 8,000 tokens in and 1,000 out; the moderator costs nothing."""
    for model in VOICES:
        fake_provider.script(model, Script(answer=f"{model}: read replicas, since reads dominate.", usage=(8000, 1000)))
    fake_provider.script("model-moderator", SYNTHESIS)
    return fake_provider


@pytest.mark.parametrize(
    ("limit", "passed"),
    [
        ("cap", "this question's cost cap of $0.05"),
        ("budget", "the site's daily budget of $0.05, $0.05 of it left for this run; it renews at 00:00 UTC"),
    ],
)
async def test_a_run_stops_at_its_limit_with_its_contributions_kept_and_billed_once(
    pricey, alice, client, limit, passed
):
    await sync_to_async(make_panel)(pricey.base_url("openai"))
    if limit == "budget":
        await Budget.objects.acreate(scope=Scope.SITE, period=Period.DAY, limit=Decimal("0.05"))
    asked = await sync_to_async(service.ask)(
        alice,
        source=Source.API,
        runs_here=True,
        text="Read replicas or sharding for our reporting load?",
        max_cost="0.05" if limit == "cap" else None,
    )
    assert (await Question.objects.aget(pk=asked.pk)).reserved == Decimal("0.0216")  # held before the first call

    assert await execute.execute(asked.pk) == Status.DONE
    done = await Question.objects.aget(pk=asked.pk)
    stops = [m for line in done.panel_run["degradations"] if (m := STOPPED.search(line))]
    assert [m.group(1) for m in stops] == [passed]  # the debate round, left out; nothing else
    kinds = [c.kind async for c in Contribution.objects.filter(round__question=done).order_by("round__index", "seat")]
    assert kinds.count("answer") == 3
    assert "debate" not in kinds
    assert kinds[-1] == "synthesis"  # the moderator's verdict, from the blind answers
    assert done.verdict == "Use read replicas."
    moderator = pricey.requests_for("model-moderator")[-1].prompt
    assert "would pass" in moderator  # told why the record stops early

    billed = len([r for model in VOICES for r in pricey.requests_for(model)]) * CALL
    stored = (await Contribution.objects.filter(round__question=done).aaggregate(total=Sum("cost")))["total"]
    assert billed == Decimal("0.03")
    assert (done.cost, Decimal(stored).quantize(hold.MICRODOLLAR)) == (billed, billed)  # billed once
    assert done.reserved == 0  # the hold ended with the run
    site = Budget(scope=Scope.SITE, period=Period.DAY, limit=Decimal("1"))
    assert await sync_to_async(hold.used)(site, site.period_start(done.created_at), other_than=0) == billed

    await sync_to_async(client.force_login)(alice)
    page = (await sync_to_async(client.get)(done.get_absolute_url())).content.decode().replace("&#x27;", "'")
    assert f"would pass {passed}" in page


async def test_a_run_that_holds_nothing_yet_is_refused_before_its_first_call(pricey, alice):
    """A question queued before its budget was set (or a failed one asked again, whose hold ended)
    holds its expected cost when its run starts, and fails in words where there is no room."""
    panel = await sync_to_async(make_panel)(pricey.base_url("openai"))
    question = await sync_to_async(make_question)(panel, owner=alice)
    await Budget.objects.acreate(scope=Scope.USER, user=alice, period=Period.DAY, limit=Decimal("0.01"))
    assert await execute.execute(question.pk) == Status.FAILED
    failed = await Question.objects.aget(pk=question.pk)
    assert failed.error.startswith("Your daily budget of $0.01 has $0.01 left, and this run is expected to cost $0.02")
    assert not pricey.requests
    assert (failed.cost, failed.reserved) == (0, 0)
