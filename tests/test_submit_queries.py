"""Submitting a question costs a few queries, however many panels there are: token, panel, roster, insert."""

import json

import pytest
from django.core.cache import cache
from django.urls import reverse

from debates.models import ApiToken, Panel, Question
from debates.tokens import assign_secret
from tests.fakes.roster import make_panel

# Reached: API 4 (the stamps of the tokens and of the roster, whether a budget covers it, the insert: a
# token and a panel with its judges and seats are read once per change, debates.lib.stamped; the token's last
# use is written once a minute); the page 5 (session, user, the roster's stamp, the budgets, insert). One
# more is allowed before this fails.
API_SUBMIT_QUERIES = 5
PAGE_SUBMIT_QUERIES = 6


@pytest.fixture(autouse=True)
def clean_cache() -> None:
    """Rate-limit counters must not leak from one test into the next."""
    cache.clear()


@pytest.fixture
def panels(db) -> list[str]:
    """Three listed panels (the last made is the default): a cost per panel would show."""
    return [make_panel("http://127.0.0.1:9/v1", voices=n, slug=slug).slug for n, slug in [(3, "a"), (5, "b"), (4, "c")]]


@pytest.fixture
def no_runs(monkeypatch: pytest.MonkeyPatch) -> list[Question]:
    submitted: list[Question] = []
    monkeypatch.setattr("debates.runs.tasks.submit", submitted.append)
    return submitted


@pytest.fixture
def bearer(alice) -> dict[str, str]:
    token = ApiToken(user=alice, name="script")
    raw = assign_secret(token)
    token.save()
    return {"HTTP_AUTHORIZATION": f"Bearer {raw}"}


def api_post(client, bearer: dict[str, str], **payload):
    return client.post("/api/questions", json.dumps(payload), content_type="application/json", **bearer)


@pytest.mark.parametrize("named", [True, False], ids=["named panel", "default panel"])
def test_an_api_submit_costs_a_few_queries(client, bearer, panels, no_runs, django_assert_max_num_queries, named):
    payload = {"text": "Shard or replicate?"} | ({"panel": "a"} if named else {})
    api_post(client, bearer, **payload)  # the first request of a test pays for one-off set-up
    with django_assert_max_num_queries(API_SUBMIT_QUERIES):
        response = api_post(client, bearer, **payload)
    assert response.status_code == 201
    assert [q.panel.slug for q in no_runs] == 2 * ["a" if named else "c"]


def test_an_api_submit_with_picked_voices_costs_one_query_more(
    client, bearer, panels, no_runs, django_assert_max_num_queries
):
    payload = {"text": "Shard or replicate?", "panel": "b", "voices": ["Alpha b", "Gamma b"]}
    api_post(client, bearer, **payload)  # makes the lineup's hidden panel: a change to the roster
    api_post(client, bearer, **payload)
    with django_assert_max_num_queries(API_SUBMIT_QUERIES + 1):
        response = api_post(client, bearer, **payload)
    assert response.status_code == 201
    assert no_runs[0].panel == no_runs[1].panel == no_runs[2].panel  # the same hidden panel of this lineup


def test_the_ask_page_submit_costs_a_few_queries(client, alice, panels, no_runs, django_assert_max_num_queries):
    client.force_login(alice)
    data = {"text": "Shard or replicate?", "panel": "b", "criticality": "medium"}
    client.post(reverse("debates:ask"), data)
    with django_assert_max_num_queries(PAGE_SUBMIT_QUERIES):
        response = client.post(reverse("debates:ask"), data)
    assert response.status_code == 302
    assert no_runs[-1].panel.slug == "b"


def test_an_unknown_panel_is_still_refused_with_the_list_of_panels(client, bearer, panels, no_runs):
    response = api_post(client, bearer, text="Shard?", panel="nope")
    assert response.status_code == 400
    assert response.json()["fields"] == {"panel": ["There is no panel “nope”. The panels: a, b, c."]}


def test_a_roster_read_with_the_panels_is_the_roster(panels):
    read = list(Panel.objects.listed().with_roster())
    assert sorted(panel.slug for panel in read) == sorted(panels)  # every panel offered is compared
    for panel in read:
        seats = Panel.objects.get(pk=panel.pk).roster()
        assert seats  # two empty rosters would match whatever with_roster read
        assert panel.roster() == seats


def test_another_prefetch_of_memberships_never_stands_for_the_roster(panels):
    """The admin prefetches memberships, then saves new ones and checks the roster it now has."""
    panel = Panel.objects.prefetch_related("memberships__panelist").get(slug="a")
    first = panel.memberships.all()[0]
    first.delete()
    assert first.panelist not in panel.roster()
