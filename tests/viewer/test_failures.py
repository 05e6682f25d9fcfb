"""Issue "When something goes wrong", a failed voice and a cancelled run, through the public
interfaces: voices stopped under strict are cancelled, not failed, and count in no failure figure;
the error is shown once; a failed run offers to retry the failed voice (only that call again) or to
go on without it (disclosed), on the page, the API and the CLI; what streamed before a failure is
paid for; and an asker's deadline, on the form, the API and the CLI."""

import re

import pytest
from asgiref.sync import async_to_sync
from django.core.management import CommandError, call_command

from debates.models import Contribution, Question
from debates.runs import execute, tasks
from tests.fakes.provider_server import Script
from tests.viewer.test_api import bearer, post

ANSWER = "Add read replicas, because reads dominate the load; shard only if writes triple."
SYNTHESIS = "## Consensus\nReplicas.\n\n## Disagreements\nNone.\n\n## Verdict\nUse read replicas."
SLOW = Script(answer="Read replicas first. " * 60, tokens_per_second=40)  # still streaming when alpha fails
BLIND_ROUND = 1  # the teorema plan: the triage (0), then the blind round


@pytest.fixture
def run_now(monkeypatch):
    """submit() runs the question to its end right here (the CLI's way), not on a server loop."""
    monkeypatch.setattr(tasks, "submit", lambda question: async_to_sync(execute.execute)(question.pk))


@pytest.fixture
def one_fails(fake_provider, panel):
    """Alpha's connection drops after a moment; beta and gamma are mid-answer when the strict policy stops them."""
    fake_provider.script("model-alpha", Script(answer=ANSWER, fault="drop", after_chunks=2, first_token_delay=0.3))
    fake_provider.script("model-beta", SLOW)
    fake_provider.script("model-gamma", SLOW)
    fake_provider.script("model-moderator", SYNTHESIS)
    return fake_provider


def failed_run(owner, panel, **fields) -> Question:
    question = Question.objects.create(
        owner=owner, panel=panel, text="Replicas or sharding?", criticality="medium", force_panel=True, **fields
    )
    tasks.submit(question)
    question.refresh_from_db()
    assert question.status == "failed"
    return question


def blind(question: Question) -> dict[str, Contribution]:
    rows = Contribution.objects.filter(round__question=question, round__index=BLIND_ROUND)
    return {row.panelist.model: row for row in rows if "#" not in row.seat}


def page_text(client, question: Question) -> str:
    html = client.get(question.get_absolute_url()).content.decode()
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


@pytest.mark.django_db(transaction=True)
def test_under_strict_the_stopped_voices_are_cancelled_and_charged_no_failure(client, one_fails, panel, run_now, alice):
    question = failed_run(alice, panel)
    rows = blind(question)
    assert rows["model-alpha"].status == "failed"
    assert {rows["model-beta"].status, rows["model-gamma"].status} == {"cancelled"}
    assert rows["model-beta"].error.startswith("stopped when Panelist")
    # What they had streamed is kept, and paid for: estimated, as usage comes at a stream's end.
    assert rows["model-beta"].text
    assert SLOW.answer.startswith(rows["model-beta"].text)
    assert rows["model-beta"].tokens_out > 0
    assert rows["model-beta"].tokens_estimated
    question.refresh_from_db()
    assert question.tokens_out > 0
    assert question.cost > 0
    # The Models page and its API charge only the voice that failed.
    client.force_login(alice)
    figures = {r["name"]: r for r in client.get("/api/models", **bearer(alice)).json()["panelists"]}
    failed = {name: record["failures"]["failed"] for name, record in figures.items()}
    assert failed == {"Alpha house": 1, "Beta house": 0, "Gamma house": 0}
    models_page = " ".join(re.sub(r"<[^>]+>", " ", client.get("/models/").content.decode()).split())
    assert models_page.count("1 failed") == 1


@pytest.mark.django_db(transaction=True)
def test_the_error_is_shown_once_and_the_toast_only_points_to_it(client, one_fails, panel, run_now, alice):
    question = failed_run(alice, panel)
    client.force_login(alice)
    html = client.get(question.get_absolute_url()).content.decode()
    assert page_text(client, question).count(question.error[:60]) == 1
    assert "No synthesis" not in html
    assert 'data-announce="The debate failed: read why, and what you can do, at the top of the page."' in html


@pytest.mark.django_db(transaction=True)
def test_the_page_retries_only_the_failed_voice_and_reuses_every_stored_contribution(
    client, fake_provider, panel, run_now, alice, bob
):
    # Alpha streams a few words, then its connection drops; beta and gamma have finished by then.
    fake_provider.script("model-alpha", Script(answer=ANSWER, fault="drop", after_chunks=4, tokens_per_second=20))
    fake_provider.script("model-beta", ANSWER, ANSWER)
    fake_provider.script("model-gamma", ANSWER, ANSWER)
    fake_provider.script("model-moderator", SYNTHESIS)
    question = failed_run(alice, panel)
    dropped = blind(question)["model-alpha"]
    assert dropped.status == "failed"
    assert dropped.tokens_out > 0
    spent = question.cost

    client.force_login(bob)  # another user's private question does not exist for him
    assert client.get(f"/q/{question.pk}/recover/").status_code == 404
    client.force_login(alice)
    offered = client.get(f"/q/{question.pk}/recover/").content.decode()
    assert f"Retry {dropped.label}" in offered
    assert f"Go on without {dropped.label}" in offered
    assert "the 2 completed contributions are reused" in " ".join(offered.split())

    fake_provider.script("model-alpha", ANSWER, ANSWER)
    before = {m: len(fake_provider.requests_for(m)) for m in ("model-alpha", "model-beta", "model-gamma")}
    assert client.post(f"/q/{question.pk}/retry/").status_code == 302
    question.refresh_from_db()
    assert question.status == "done"
    assert question.verdict == "Use read replicas."
    made = {m: len(fake_provider.requests_for(m)) - n for m, n in before.items()}
    assert made == {"model-alpha": 2, "model-beta": 1, "model-gamma": 1}  # alpha's answer again, then the debate
    # The failed try stays, renamed, so its cost and its failure stay in every figure.
    earlier = Contribution.objects.get(round__question=question, seat=f"{dropped.seat}#1")
    assert earlier.status == "failed"
    assert earlier.tokens_out == dropped.tokens_out
    assert blind(question)["model-alpha"].status == "done"
    assert question.cost > spent
    text = page_text(client, question)
    assert "What you can do" not in text


@pytest.mark.django_db(transaction=True)
def test_the_api_goes_on_without_the_failed_voice_and_says_so(client, one_fails, panel, run_now, alice, bob):
    question = failed_run(alice, panel)
    failed_label = blind(question)["model-alpha"].label
    url = f"/api/questions/{question.pk}/retry"
    refused = client.post(url, '{"without_failed": "yes"}', content_type="application/json", **bearer(alice))
    assert refused.status_code == 400
    assert refused.json()["fields"]["without_failed"] == ["Must be true or false, not a string."]
    other = client.post(url, '{"without_failed": true}', content_type="application/json", **bearer(bob))
    assert other.status_code == 404

    one_fails.script("model-beta", ANSWER, ANSWER, ANSWER)
    one_fails.script("model-gamma", ANSWER, ANSWER, ANSWER)
    alpha_calls = len(one_fails.requests_for("model-alpha"))
    response = client.post(url, '{"without_failed": true}', content_type="application/json", **bearer(alice))
    assert response.status_code == 202
    question.refresh_from_db()
    assert question.status == "done"
    assert question.failure_policy == "degrade"
    assert len(one_fails.requests_for("model-alpha")) == alpha_calls  # never called again
    notes = " ".join(question.panel_run["degradations"])
    assert f"{failed_label} failed" in notes  # disclosed: a stand-in took its seat
    detail = client.get(f"/api/questions/{question.pk}", **bearer(alice)).json()
    assert detail["panel_run"]["policy"] == "degrade"
    again = client.post(url, "{}", content_type="application/json", **bearer(alice))
    assert again.status_code == 409
    assert "only a failed run can be retried" in again.json()["error"]


@pytest.mark.django_db(transaction=True)
def test_the_cli_retries_or_goes_on_without_and_refuses_what_cannot_be(one_fails, panel, run_now, alice, capsys):
    question = failed_run(alice, panel)
    with pytest.raises(CommandError, match="--without-failed goes with --retry"):
        call_command("ask", "Replicas?", "--without-failed")
    one_fails.script("model-alpha", Script(status=500))  # fails again: under strict, the run fails again
    with pytest.raises(SystemExit):
        call_command("ask", "--retry", str(question.pk))
    said = capsys.readouterr().out
    label = blind(question)["model-alpha"].label
    assert f"Retry {label} (every completed contribution is reused): python manage.py ask --retry {question.pk}" in said
    assert f"ask --retry {question.pk} --without-failed" in said
    question.refresh_from_db()
    assert question.status == "failed"
    assert Contribution.objects.filter(round__question=question, seat__contains="#").count() >= 3  # every try kept
    one_fails.script("model-beta", ANSWER, ANSWER, ANSWER)
    one_fails.script("model-gamma", ANSWER, ANSWER, ANSWER)
    call_command("ask", "--retry", str(question.pk), "--without-failed")
    assert "Verdict: Use read replicas." in capsys.readouterr().out
    with pytest.raises(CommandError, match="only a failed run can be retried"):
        call_command("ask", "--retry", str(question.pk), "--without-failed")


# --- the deadline ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("value", "words"),
    [(5, "under 20 seconds"), (7200, "at most 3600"), ("60", "a whole number of seconds"), (True, "whole number")],
)
def test_a_bad_deadline_is_refused_in_words(client, alice, offline_panel, no_runs, value, words):
    response = post(client, {"text": "Which DB?", "deadline": value}, **bearer(alice))
    assert response.status_code == 400
    assert words in " ".join(response.json()["fields"]["deadline"])
    assert not no_runs


def test_the_form_and_the_api_store_the_deadline(client, alice, offline_panel, no_runs):
    assert post(client, {"text": "Which DB?", "deadline": 90}, **bearer(alice)).status_code == 201
    client.force_login(alice)
    assert "Answer within (seconds)" in client.get("/").content.decode()
    page = client.post("/", {"text": "Which cache?", "panel": "offline", "deadline": "45"})
    assert page.status_code == 302
    assert sorted(Question.objects.values_list("deadline", flat=True)) == [45, 90]
    asked = Question.objects.get(deadline=90)
    assert client.get(f"/api/questions/{asked.pk}", **bearer(alice)).json()["deadline"] == 90
    refused = client.post("/", {"text": "Which queue?", "panel": "offline", "deadline": "soon"})
    assert refused.status_code == 400
    assert "Give the deadline as a whole number of seconds." in refused.content.decode()


@pytest.mark.django_db(transaction=True)
def test_a_stalled_provider_never_holds_a_question_past_its_deadline(fake_provider, panel, capsys):
    fake_provider.script("model-alpha", ANSWER, ANSWER)
    fake_provider.script("model-beta", ANSWER, ANSWER)
    fake_provider.script("model-gamma", Script(fault="hang"))  # accepts the connection, never answers
    fake_provider.script("model-moderator", SYNTHESIS)
    call_command("ask", "Replicas or sharding?", "--deadline", "20", "--force-panel")
    out = capsys.readouterr().out
    assert "Verdict: Use read replicas." in out
    question = Question.objects.get()
    assert question.deadline == 20
    assert question.status == "done"
    assert (question.finished_at - question.started_at).total_seconds() < 20
    stopped = blind(question)["model-gamma"]
    assert stopped.status == "cancelled"
    assert stopped.error == "stopped when the panel's share of the 20 s deadline was up"
    assert any("deadline" in note for note in question.panel_run["degradations"])
