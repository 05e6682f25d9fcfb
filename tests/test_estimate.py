"""A run's estimate before it starts, low / expected / high (debates/roster/estimate.py): the bounds are
checked against what the fake panel really spends, end to end (the fake provider server, priced
models): the high holds on every path, escalations included; the low is no more than a usual run."""

import json
from decimal import Decimal

import pytest
from asgiref.sync import sync_to_async

from debates.models import Panel, Panelist, Question, Status
from debates.roster.readiness import PanelOption
from debates.runs import tasks
from tests.fakes.answers import ADVERSARIAL_SYNTHESIS, SYNTHESIS
from tests.fakes.roster import make_panel, make_question
from tests.test_runs import finished

MODELS = ("model-alpha", "model-beta", "model-gamma")


def ballot(decision: str) -> str:
    return (
        "```json\n" + json.dumps({"decision": decision, "confidence": 0.8, "reasoning": "the logs show it"}) + "\n```"
    )


def priced(server, protocol: str, **settings) -> Panel:
    """A panel on the fake server whose every voice has a price (the moderator's and a tie-breaker's too)."""
    panel = make_panel(server.base_url("openai"), protocol=protocol, slug=f"p-{protocol}")
    Panelist.objects.filter(pk=panel.moderator_id).update(price_in="3.00", price_out="15.00")
    breaker = Panelist.objects.create(
        name=f"Breaker {protocol}", provider=panel.moderator.provider, model="model-breaker", family="sigma",
        price_in="0.50", price_out="1.50",
    )  # fmt: skip
    Panel.objects.filter(pk=panel.pk).update(tie_breaker=breaker, **settings)
    return Panel.objects.with_roster().get(pk=panel.pk)


def estimated(panel: Panel):
    return PanelOption.of(panel).estimate


async def spent(panel: Panel) -> Question:
    question = await sync_to_async(make_question)(panel)
    await sync_to_async(tasks.submit)(question)
    return await finished(question.pk)


@pytest.mark.django_db(transaction=True)
async def test_the_bounds_hold_against_the_fake_panels_real_spend(fake_provider):
    """A teorema debate and an adversarial one on the usual path, and a vote that escalates to a
    debate on the dissent, a re-vote and the tie-breaker: each costs no more than its high."""
    for model in MODELS:
        fake_provider.script(model, f"{model}: read replicas, because reporting reads dominate the load.")
    fake_provider.script("model-moderator", SYNTHESIS)
    usual = await sync_to_async(priced)(fake_provider, "teorema")
    run = await spent(usual)
    estimate = await sync_to_async(estimated)(usual)
    assert run.status == Status.DONE
    assert Decimal(0) < estimate.low <= run.cost <= estimate.high
    assert estimate.low <= estimate.expected <= estimate.high
    assert estimate.calls_low <= run.calls <= estimate.calls_high

    fake_provider.script("model-moderator", ADVERSARIAL_SYNTHESIS)
    adversarial = await sync_to_async(priced)(fake_provider, "adversarial")
    run = await spent(adversarial)
    estimate = await sync_to_async(estimated)(adversarial)
    assert run.status == Status.DONE
    assert estimate.low <= run.cost <= estimate.high
    assert estimate.calls_low <= run.calls <= estimate.calls_high

    for model, decision in zip(MODELS, ("approve", "reject", "defer"), strict=True):
        fake_provider.script(model, ballot(decision))  # they never agree: every escalation happens
    fake_provider.script("model-breaker", ballot("defer"))
    split = await sync_to_async(priced)(fake_provider, "vote", revote_on_dissent=True)
    run = await spent(split)
    estimate = await sync_to_async(estimated)(split)
    assert run.status == Status.DONE
    assert "tie-breaker" in run.verdict
    assert run.calls > estimate.calls  # the escalations, beyond the planned calls
    assert estimate.low <= run.cost <= estimate.high
    assert run.calls <= estimate.calls_high


@pytest.mark.django_db
@pytest.mark.parametrize("protocol", ["teorema", "adversarial", "vote"])
def test_low_expected_high_are_in_order_on_every_protocol(protocol):
    panel = priced_offline(protocol)
    estimate = estimated(panel)
    assert Decimal(0) < estimate.low < estimate.expected < estimate.high
    assert estimate.calls_low <= estimate.calls < estimate.calls_high
    assert estimate.as_dict()["expected"] == str(estimate.expected.quantize(Decimal("0.0001")))


def priced_offline(protocol: str, **settings) -> Panel:
    class Nowhere:
        def base_url(self, wire: str) -> str:
            return "http://127.0.0.1:9/v1"

    return priced(Nowhere(), protocol, **settings)


@pytest.mark.django_db
def test_the_low_of_an_adversarial_panel_is_its_triage_answering_directly():
    estimate = estimated(priced_offline("adversarial"))
    assert estimate.calls_low == 1


@pytest.mark.django_db
def test_re_votes_raise_the_high_and_not_the_expected():
    panel = priced_offline("vote")
    plain = estimated(panel)
    Panel.objects.filter(pk=panel.pk).update(revote_on_dissent=True)
    revoting = estimated(Panel.objects.with_roster().get(pk=panel.pk))
    assert revoting.expected == plain.expected
    assert revoting.high > plain.high
    # A debate on the dissent and a re-vote, each voice asked its basis in both; the judge after the re-vote.
    assert revoting.calls_high == plain.calls_high + (3 + 3) + (3 + 3 + 1)


@pytest.mark.django_db
def test_the_high_grows_with_the_voices_max_tokens():
    panel = priced_offline("teorema")
    before = estimated(panel)
    Panelist.objects.filter(model="model-alpha").update(max_tokens=8000)
    after = estimated(Panel.objects.with_roster().get(pk=panel.pk))
    assert after.high > before.high
    assert after.expected == before.expected  # a typical call writes 800 tokens either way


@pytest.mark.django_db
def test_the_api_lists_each_panels_estimate(client, alice):
    priced_offline("teorema")
    client.force_login(alice)
    found = client.get("/api/panels").json()["panels"]
    estimate = found[0]["estimate"]
    assert found[0]["slug"] == "p-teorema"
    assert Decimal(estimate["low"]) < Decimal(estimate["expected"]) < Decimal(estimate["high"])
    assert estimate["expected"] == found[0]["estimated_cost"]
    client.logout()
    assert client.get("/api/panels").status_code == 401
    assert client.post("/api/panels").status_code == 405
