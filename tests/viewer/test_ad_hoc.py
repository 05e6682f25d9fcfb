"""Voices picked for one question: any enabled panelists, a protocol and a moderator of the
asker's choosing, on the chosen panel's settings — on the page, the API and the CLI."""

import pytest
from asgiref.sync import async_to_sync
from django.core.management import call_command

from debates.models import Panel, Panelist, Question
from debates.runs import execute, tasks
from tests.fakes.answers import ADVERSARIAL_SYNTHESIS, SYNTHESIS
from tests.viewer.test_api import bearer

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def run_now(monkeypatch):
    monkeypatch.setattr(tasks, "submit", lambda question: async_to_sync(execute.execute)(question.pk))


@pytest.fixture
def voices(panel, fake_provider):
    for model in ("model-alpha", "model-beta", "model-gamma"):
        fake_provider.script(model, f"{model}: add read replicas, reads dominate. Confidence 70%.")
    fake_provider.script("model-moderator", SYNTHESIS)
    return {p.model: p.name for p in Panelist.objects.all()}


def test_two_voices_picked_on_the_page_debate_on_the_panels_settings(
    client, alice, panel, voices, run_now, fake_provider
):
    client.force_login(alice)
    page = client.get("/").content.decode()
    assert "Pick the voices yourself" in page
    response = client.post(
        "/",
        {
            "text": "Shard or add read replicas?",
            "panel": panel.slug,
            "criticality": "low",
            "voices": [voices["model-alpha"], voices["model-gamma"]],
        },
    )
    assert response.status_code == 302
    question = Question.objects.get()
    assert question.status == "done"
    assert question.panel.ad_hoc
    assert [p.model for p in question.panel.roster()] == ["model-alpha", "model-gamma"]
    assert question.panel.moderator == panel.moderator
    assert {r.model for r in fake_provider.requests} == {"model-alpha", "model-gamma", "model-moderator"}
    # Picked panels are not offered as panels, and picking the same voices again reuses one.
    assert question.panel.slug not in client.get("/").content.decode()
    client.post("/", {"text": "Again?", "panel": panel.slug, "voices": [voices["model-gamma"], voices["model-alpha"]]})
    assert Panel.objects.filter(ad_hoc=True).count() == 2  # another order is another seating


def test_the_protocol_and_moderator_can_be_picked_too(client, alice, panel, voices, run_now, fake_provider):
    fake_provider.script("model-beta", ADVERSARIAL_SYNTHESIS)
    client.force_login(alice)
    client.post(
        "/",
        {
            "text": "Shard or add read replicas?",
            "panel": panel.slug,
            "criticality": "low",
            "force_panel": "on",
            "protocol": "adversarial",
            "moderator": voices["model-beta"],
        },
    )
    question = Question.objects.get()
    assert question.panel.protocol == "adversarial"
    assert question.panel.moderator.model == "model-beta"
    assert [p.model for p in question.panel.roster()] == ["model-alpha", "model-beta", "model-gamma"]
    assert question.status == "done"


@pytest.mark.parametrize(
    ("fields", "field", "message"),
    [
        ({"voices": ["Nobody"]}, "voices", "There is no enabled panelist “Nobody”."),
        ({"voices": ["Alpha house"]}, "voices", "Pick at least two voices: one voice is not a panel."),
        ({"protocol": "chaos"}, "protocol", "“chaos” is not a protocol: use teorema, adversarial or vote."),
        ({"moderator": "Nobody"}, "moderator", "There is no enabled panelist “Nobody” to moderate."),
    ],
)
def test_wrong_picks_are_refused_in_words_on_the_api(client, alice, panel, voices, no_runs, fields, field, message):
    payload = {"text": "Shard?", "panel": panel.slug} | fields
    response = client.post("/api/questions", payload, content_type="application/json", **bearer(alice))
    assert response.status_code == 400
    assert response.json()["fields"][field] == [message]
    assert not Question.objects.exists()


def test_picked_voices_that_cannot_run_are_refused_naming_the_cause(client, alice, panel, voices, no_runs):
    beta = Panelist.objects.get(model="model-beta")
    beta.provider.set_api_key("")
    beta.provider.save()
    payload = {"text": "Shard?", "panel": panel.slug, "voices": [voices["model-alpha"], voices["model-beta"]]}
    response = client.post("/api/questions", payload, content_type="application/json", **bearer(alice))
    assert response.status_code == 400
    assert "These voices cannot run: Fake house has no key for" in response.json()["fields"]["voices"][0]


def test_the_cli_picks_voices_too(panel, voices, capsys):
    call_command(
        "ask",
        "Shard or add read replicas?",
        "--panel",
        panel.slug,
        "--criticality",
        "low",
        "--voice",
        voices["model-beta"],
        "--voice",
        voices["model-alpha"],
    )
    question = Question.objects.get()
    assert [p.model for p in question.panel.roster()] == ["model-beta", "model-alpha"]
    assert question.status == "done"
