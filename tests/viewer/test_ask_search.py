"""Whether a question's voices search the web: the asker's switch on every way in (the page, the
JSON API, the terminal), the panel's forbidding it, the panelist's setting, and the estimate."""

import io
from decimal import Decimal

import pytest
from django.core.management import call_command
from django.urls import reverse

from debates.models import Panelist, Provider, Question
from debates.roster.estimate import call_cost
from debates.roster.readiness import PanelOption
from debates.runs.spec import freeze_roster
from tests.fakes.answers import SYNTHESIS
from tests.viewer.test_api import bearer, post


@pytest.fixture
def asker(client, alice):
    client.force_login(alice)
    return client


@pytest.fixture
def searching(offline_panel) -> Panelist:
    """The panel's first voice moves to an Anthropic-wire provider and may search, at $10 a 1,000."""
    provider = Provider.objects.create(name="Claude's", wire="anthropic", base_url="http://127.0.0.1:9")
    provider.set_api_key("sk-ant-fake")
    provider.save()
    first = offline_panel.roster()[0]
    first.provider, first.search, first.price_search = provider, True, Decimal(10)
    first.full_clean()
    first.save()
    return first


def asked(client, data) -> Question:
    client.post(reverse("debates:ask"), {"text": "Shard?", "panel": "offline", "criticality": "medium"} | data)
    return Question.objects.order_by("pk").last()


def test_the_page_offers_search_ticked_and_unticked_means_off(asker, offline_panel, no_runs):
    page = asker.get("/").content.decode()
    assert '<input type="hidden" name="search" value="false">' in page
    assert 'type="checkbox" name="search" value="true" id="id_search" checked' in page
    assert asked(asker, {"search": ["false", "true"]}).search is True  # ticked: the box comes after its hidden twin
    assert asked(asker, {"search": "false"}).search is False  # unticked: only the hidden field
    assert asked(asker, {}).search is True  # a client that leaves it out keeps it on


def test_the_api_takes_search_as_true_or_false_and_refuses_anything_else(client, alice, offline_panel, no_runs):
    token = bearer(alice)
    assert post(client, {"text": "Shard?", "panel": "offline", "search": False}, **token).status_code == 201
    assert Question.objects.get().search is False
    post(client, {"text": "Shard?", "panel": "offline"}, **token)
    assert Question.objects.order_by("pk").last().search is True
    refused = post(client, {"text": "Shard?", "panel": "offline", "search": "no"}, **token)
    assert refused.status_code == 400
    assert "search" in refused.json()["fields"]
    assert "true or false" in refused.json()["fields"]["search"][0]


@pytest.mark.django_db(transaction=True)
def test_the_terminal_turns_search_off_with_no_search(fake_provider, panel):
    fake_provider.script("model-moderator", SYNTHESIS)
    call_command("ask", "Shard?", "--panel", "house", "--criticality", "low", "--no-search", stdout=io.StringIO())
    assert Question.objects.get().search is False


def test_a_seat_searches_when_its_panelist_may_the_question_lets_it_and_the_panel_does_not_forbid_it(
    offline_panel, searching, make_question, alice
):
    def seats(**fields) -> dict[str, bool]:
        return {e["seat"]: e.get("search", False) for e in freeze_roster(make_question(alice, offline_panel, **fields))}

    assert seats() == {"p1": True, "p2": False, "p3": False, "moderator": False}
    assert not any(seats(search=False).values())
    offline_panel.forbid_search = True
    offline_panel.save()
    assert not any(seats().values())


def test_the_estimate_says_who_may_search_and_what_their_searches_add(asker, offline_panel, searching):
    page = " ".join(asker.get("/").content.decode().split())
    # Teorema: a blind answer and a debate reply, one search each, at $10 a 1,000.
    assert (
        f"1 voice may search the web ({searching.name}): about $0.020 of the estimate, one search a call; "
        "none if you turn search off below."
    ) in page
    offline_panel.forbid_search = True
    offline_panel.save()
    page = asker.get("/").content.decode()
    assert "This panel forbids web search" in page
    assert "may search the web" not in page


def test_a_search_model_is_priced_for_a_search_on_every_call_even_with_search_off(offline_panel):
    provider = Provider.objects.create(name="OpenAI's", preset="openai", wire="openai", base_url="http://127.0.0.1:9")
    first = offline_panel.roster()[0]
    first.provider, first.model, first.search, first.price_search = provider, "gpt-4o", False, Decimal(25)
    first.save()
    plain = call_cost(first)
    first.model = "gpt-4o-search-preview"
    first.save()
    assert call_cost(first) == plain + Decimal("0.025")  # its search fee in every call, whatever the question says
    option = PanelOption.of(offline_panel)
    assert option.search_cost == 0  # nothing of it goes away when search is turned off
    assert first.name not in option.searching
