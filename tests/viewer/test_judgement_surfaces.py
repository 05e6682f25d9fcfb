"""Issue "The verdict says only what the panel said", through the public interfaces: the asker's
options on the form, API and CLI; a failed synthesis written again from the stored panel work
on the page, the API and the CLI; a judge on a panelist's model warned about wherever a panel
is defined or chosen; Telegram asks through the one form."""

import json

import pytest
from django.core.management import CommandError, call_command

from debates import service
from debates.models import Contribution, Panelist, Question, Round
from debates.refusal import Refused
from debates.roster.toml import import_roster
from debates.runs import execute, tasks
from tests.fakes.provider_server import Script
from tests.fakes.roster import make_question
from tests.viewer.test_api import bearer, post

SYNTHESIS = "## Consensus\nReplicas.\n\n## Disagreements\nNone.\n\n## Verdict\nUse read replicas."
ANSWER = "Add read replicas, because reads dominate the load; shard only if writes triple."


@pytest.fixture
def scripted(fake_provider, panel):
    for family in ("alpha", "beta", "gamma"):
        fake_provider.script(f"model-{family}", ANSWER)
    fake_provider.script("model-moderator", SYNTHESIS)
    return fake_provider


# --- options ---------------------------------------------------------------------------------
def test_the_api_takes_options_as_a_list_and_stores_them(client, alice, offline_panel, no_runs):
    response = post(client, {"text": "Which DB?", "options": ["PostgreSQL", "MongoDB"]}, **bearer(alice))
    assert response.status_code == 201
    assert Question.objects.get().options == ["PostgreSQL", "MongoDB"]


@pytest.mark.parametrize(
    ("options", "words"),
    [(["only one"], "at least two"), (["a", "A"], "twice"), ([1, 2], "list of strings"), ({"a": 1}, "list of strings")],
)
def test_bad_options_are_refused_with_the_field_named(client, alice, offline_panel, no_runs, options, words):
    response = post(client, {"text": "Which DB?", "options": options}, **bearer(alice))
    assert response.status_code == 400
    assert words in " ".join(response.json()["fields"]["options"])
    assert not no_runs


def test_the_ask_page_takes_one_option_per_line(client, alice, offline_panel, no_runs):
    client.force_login(alice)
    response = client.post("/", {"text": "Which DB?", "panel": "offline", "options": "PostgreSQL\n\n MongoDB \n"})
    assert response.status_code == 302
    assert Question.objects.get().options == ["PostgreSQL", "MongoDB"]


@pytest.mark.django_db(transaction=True)
def test_the_cli_passes_options_and_the_voters_must_pick_one_verbatim(fake_provider, panel, capsys):
    panel.protocol = "vote"
    panel.save()
    for family, choice in (("alpha", "B"), ("beta", "MongoDB"), ("gamma", "mongodb")):
        fake_provider.script(f"model-{family}", json.dumps({"decision": choice, "confidence": 0.8, "reasoning": "x"}))
    call_command("ask", "Which DB?", "--option", "PostgreSQL", "--option", "MongoDB", "--criticality", "low")
    question = Question.objects.get()
    assert question.options == ["PostgreSQL", "MongoDB"]
    assert question.verdict == "MongoDB"
    assert question.consensus["agreement"] == "3/3"
    prompt = fake_provider.requests_for("model-alpha")[0].prompt
    assert "- PostgreSQL" in prompt
    assert "- MongoDB" in prompt


# --- retrying a failed synthesis -------------------------------------------------------------
def failed_synthesis(server, panel) -> Question:
    """A run whose panel finished and whose moderator failed, and so did its stand-in."""
    server.script("model-moderator", Script(status=500))
    server.script("model-alpha", ANSWER, ANSWER, Script(status=500))  # answer, debate, then standing in
    question = make_question(panel, text="Replicas or sharding?")
    tasks.submit(question)
    question.refresh_from_db()
    return question


@pytest.fixture
def run_now(monkeypatch):
    """submit() runs the question to its end right here (the CLI's way), not on a server loop."""
    from asgiref.sync import async_to_sync

    monkeypatch.setattr(tasks, "submit", lambda question: async_to_sync(execute.execute)(question.pk))


@pytest.mark.django_db(transaction=True)
def test_a_failed_synthesis_is_written_again_from_the_stored_work_alone(scripted, panel, run_now, alice):
    question = failed_synthesis(scripted, panel)
    assert question.status == "failed"
    assert "retry the synthesis" in question.error
    failure = execute.failure_of(question)
    assert {row.kind for row in failure.failed} == {"synthesis"}
    assert "can only be written again" in failure.without  # a synthesis cannot be left out
    panel_calls = len(scripted.requests)
    scripted.script("model-moderator", SYNTHESIS)
    service.retry(None, question.pk)
    question.refresh_from_db()
    assert question.status == "done"
    assert question.verdict == "Use read replicas."
    assert len(scripted.requests) == panel_calls + 1  # the moderator, once
    with pytest.raises(Refused, match="only a failed run"):  # nothing left to retry
        service.retry(None, question.pk)


@pytest.mark.django_db(transaction=True)
def test_the_page_offers_the_retry_to_the_asker_and_runs_it(client, scripted, panel, run_now, alice, bob):
    question = failed_synthesis(scripted, panel)
    Question.objects.filter(pk=question.pk).update(owner=alice, visibility="users")
    client.force_login(bob)
    assert client.get(f"/q/{question.pk}/recover/").content == b""  # a reader is offered nothing
    assert client.post(f"/q/{question.pk}/retry/").status_code == 404
    client.force_login(alice)
    offered = client.get(f"/q/{question.pk}/recover/").content.decode()
    assert "Retry Moderator" in offered
    assert "Go on without" not in offered  # a synthesis cannot be left out
    scripted.script("model-moderator", SYNTHESIS)
    response = client.post(f"/q/{question.pk}/retry/")
    assert response.status_code == 302
    question.refresh_from_db()
    assert question.status == "done"


@pytest.mark.django_db(transaction=True)
def test_the_api_retries_a_failed_synthesis_and_refuses_anything_else(client, scripted, panel, run_now, alice):
    question = failed_synthesis(scripted, panel)
    Question.objects.filter(pk=question.pk).update(owner=alice)
    scripted.script("model-moderator", SYNTHESIS)
    url = f"/api/questions/{question.pk}/retry-synthesis"
    response = client.post(url, content_type="application/json", **bearer(alice))
    assert response.status_code == 202
    assert Question.objects.get(pk=question.pk).status == "done"
    again = client.post(url, content_type="application/json", **bearer(alice))
    assert again.status_code == 409
    assert "only a failed run can be retried" in again.json()["error"]


@pytest.mark.django_db(transaction=True)
def test_the_cli_retries_a_failed_synthesis(scripted, panel, run_now, capsys):
    question = failed_synthesis(scripted, panel)
    scripted.script("model-moderator", SYNTHESIS)
    call_command("ask", "--retry-synthesis", str(question.pk))
    assert "Verdict: Use read replicas." in capsys.readouterr().out
    with pytest.raises(CommandError, match="only a failed run can be retried"):
        call_command("ask", "--retry-synthesis", str(question.pk))
    assert Round.objects.filter(question=question, kind="synthesis").count() == 1
    assert Contribution.objects.filter(round__question=question, kind="synthesis", status="done").count() == 1


# --- self-preference warnings ----------------------------------------------------------------
def test_a_moderator_on_a_panelists_model_is_warned_about_on_the_ask_page(client, alice, offline_panel):
    alpha = Panelist.objects.get(model="model-alpha")
    moderator = offline_panel.moderator
    moderator.model, moderator.provider = alpha.model, alpha.provider
    moderator.save()
    client.force_login(alice)
    page = client.get("/").content.decode()
    assert "would judge its own answer" in page


def test_roster_import_warns_about_a_judge_on_a_panelists_model(db):
    report = import_roster(
        """
        [[providers]]
        name = "P"
        wire = "openai"
        base_url = "http://127.0.0.1:9/v1"
        [[panelists]]
        name = "A"
        provider = "P"
        model = "m-a"
        family = "a"
        [[panelists]]
        name = "B"
        provider = "P"
        model = "m-b"
        family = "b"
        [[panelists]]
        name = "Judge"
        provider = "P"
        model = "m-a"
        family = "a"
        [[panels]]
        name = "Two"
        members = ["A", "B"]
        moderator = "Judge"
        is_default = true
        options = ["yes", "no"]
        """
    )
    assert any("Judge" in warning and "own answer" in warning for warning in report.warnings)


def test_one_warning_per_judge_names_every_panelist_on_its_model(offline_panel):
    *same, other = offline_panel.roster()
    for member in same:
        member.model = offline_panel.moderator.model
        member.save()
    [warning] = offline_panel.self_judging()
    assert all(member.name in warning for member in same)
    assert other.name not in warning
    assert warning.startswith(f"The moderator {offline_panel.moderator.name} runs model-moderator, as panelists ")


def test_a_panel_all_on_the_judges_model_is_not_warned_about_self_preference(offline_panel):
    """Every answer is the judge's own model's: there is no other answer for it to disfavour."""
    for member in offline_panel.roster():
        member.model = offline_panel.moderator.model
        member.save()
    assert offline_panel.self_judging() == []
