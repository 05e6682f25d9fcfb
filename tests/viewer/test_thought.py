"""A voice's reasoning as its provider summarised it (OpenAI's Responses API): folded under its text on the
page, quoted in the Markdown export, its own field in the API object, and never taken for its answer."""

import pytest

from debates.engine.events import ContributionResult
from debates.live import story
from debates.models import Contribution, Round
from tests.viewer.test_api import bearer
from tests.viewer.test_ledger_page import page_of, words

ANSWER = "Replicate: reads dominate.\n\nANSWER: replicate"
THOUGHT = "**Weighing the load**\n\nReads dominate, see [this](javascript:alert(1)); so replicas first."


@pytest.fixture
def reasoned(alice, offline_panel, make_question):
    roster = [{"seat": "p1", "label": "Panelist A", "name": "Alpha"}]
    question = make_question(alice, offline_panel, status="done", verdict="Replicate.", roster=roster)
    round_ = Round.objects.create(question=question, index=0, kind="answer", title="Round 0", status="done")
    done = ContributionResult(0, "p1", "Panelist A", "answer", "done", text=ANSWER, thought=THOUGHT)
    Contribution.objects.create(round=round_, **Contribution.fields_of(done))
    return question


def test_the_page_folds_the_summary_under_the_text_as_sanitised_markdown(client, alice, reasoned):
    page = page_of(client, alice, reasoned)
    folded = page.split('<details class="thought">', 1)[1].split("</details>", 1)[0]
    assert "How it reasoned" in folded
    assert "<strong>Weighing the load</strong>" in folded
    assert 'href="javascript:' not in folded  # written as text at most, as a card's answer is
    assert "Reads dominate" in words(folded)
    assert "Weighing the load" not in page.split('<details class="thought">', 1)[0]  # not in the answer's text


def test_the_api_and_the_exports_carry_it_apart_from_the_text(client, alice, reasoned):
    (contribution,) = client.get(f"/api/questions/{reasoned.pk}", **bearer(alice)).json()["rounds"][0]["contributions"]
    assert (contribution["text"], contribution["thought"]) == (ANSWER, THOUGHT)
    client.force_login(alice)
    assert client.get(f"/q/{reasoned.pk}/export.json").json()["rounds"][0]["contributions"][0]["thought"] == THOUGHT
    markdown = client.get(f"/q/{reasoned.pk}/export.md").content.decode()
    assert f"*{story.THOUGHT}*\n\n> **Weighing the load**\n>\n> Reads dominate" in markdown
    assert "](javascript:" not in markdown  # defanged, as every model's text in the export
