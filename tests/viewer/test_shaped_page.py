"""A run asked for its verdict in a schema (an OpenAI client's response_format) shows that call
where people read the run: a round of its own on the page, the JSON API and the exports, with what
it cost."""

import json

import pytest
from django.urls import reverse

from debates.models import Contribution, Round
from tests.viewer.test_ledger_page import BLIND, page_of, store

DECIDED = {"choice": "replicas", "confidence": 0.7}


@pytest.fixture
def shaped(alice, offline_panel, make_question):
    question = make_question(alice, offline_panel, status="done", verdict="Add read replicas.", shaped=DECIDED)
    store(question, [("answer", BLIND)])
    last = Round.objects.create(
        question=question, index=5, kind="shaped", title="Moderator — the verdict in the asker's schema", status="done"
    )
    Contribution.objects.create(
        round=last, seat="moderator", label="Moderator", kind="shaped", status="done", text=json.dumps(DECIDED)
    )
    return question


def test_the_page_shows_the_verdict_in_the_schema_as_a_round_of_its_own(client, alice, shaped):
    page = page_of(client, alice, shaped)
    heading = "Moderator — the verdict in the asker&#x27;s schema</h2>"
    assert page.count(heading) == 1
    assert "&quot;choice&quot;: &quot;replicas&quot;" in page.split(heading, 1)[1]


def test_the_api_and_the_exports_carry_it(client, alice, shaped):
    client.force_login(alice)
    api = client.get(reverse("debates:api_question", args=[shaped.pk])).json()
    [contribution] = [c for r in api["rounds"] if r["kind"] == "shaped" for c in r["contributions"]]
    assert json.loads(contribution["text"]) == DECIDED
    markdown = client.get(reverse("debates:export", args=[shaped.pk, "md"])).content.decode()
    assert "the verdict in the asker's schema" in markdown
