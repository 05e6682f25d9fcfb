"""Judging a verdict right, wrong or partly: one rule on the question page, the API and the CLI,
and every refusal in words (not finished, not yours, a bad value, a note too long)."""

import json
import re
from html import unescape

import pytest
from django.core.management import CommandError, call_command

from debates.models import VerdictOutcome
from tests.track.conftest import bearer
from tests.track.history import Debate, Voice, store

NOTE_LIMIT = VerdictOutcome.MAX_NOTE


@pytest.fixture
def done(alice, house):
    """Alice's finished question, shared with every signed-in user."""
    return store(house, Debate({"Panelist A": Voice()}), owner=alice, visibility="users")


def page_post(client, question, **data):
    return client.post(f"/q/{question.pk}/outcome/", data, follow=True)


def api_post(client, question, payload, **headers):
    body = payload if isinstance(payload, str) else json.dumps(payload)
    return client.post(f"/api/questions/{question.pk}/outcome", body, content_type="application/json", **headers)


def said(response) -> str:
    return " ".join(str(m) for m in response.context["messages"])


# --- the page -------------------------------------------------------------------------------------


def test_the_asker_judges_the_verdict_on_its_page_and_sees_the_judgement(client, alice, done):
    client.force_login(alice)
    page = client.get(done.get_absolute_url()).content.decode()
    assert f'action="/q/{done.pk}/outcome/"' in page
    response = page_post(client, done, outcome="partly", note="Replicas helped; the writes still needed sharding.")
    assert "Recorded: the verdict was partly right." in said(response)
    outcome = VerdictOutcome.objects.get(question=done)
    assert (outcome.value, outcome.marked_by, outcome.note) == ("partly", alice, outcome.note)
    html = response.content.decode()
    assert "Partly right" in html
    assert "judged by alice" in html
    assert "the writes still needed sharding" in html


def test_judging_again_changes_the_one_judgement(client, alice, done):
    client.force_login(alice)
    page_post(client, done, outcome="right")
    page_post(client, done, outcome="wrong", note="")
    assert list(VerdictOutcome.objects.values_list("value", flat=True)) == ["wrong"]


def test_staff_may_judge_anyones_verdict(client, staff, done):
    client.force_login(staff)
    response = page_post(client, done, outcome="right")
    assert "Recorded" in said(response)
    assert VerdictOutcome.objects.get().marked_by == staff


@pytest.mark.parametrize(
    ("data", "words"),
    [
        ({"outcome": "maybe"}, "The outcome must be right, wrong or partly, not 'maybe'."),
        ({}, "The outcome must be right, wrong or partly, not nothing."),
        ({"outcome": "right", "note": "x" * (NOTE_LIMIT + 1)}, "The note is 2,001 characters long: at most 2,000"),
    ],
)
def test_a_bad_value_or_a_long_note_shows_the_form_again_with_the_error_and_the_note_as_typed(
    client, alice, done, data, words
):
    client.force_login(alice)
    typed = {"note": "Replicas helped; the writes still needed sharding."} | data
    response = page_post(client, done, **typed)
    assert response.status_code == 400
    page = unescape(response.content.decode())
    assert words in page
    [kept] = re.findall(r'<textarea id="outcome-note"[^>]*>(.*?)</textarea>', page, re.DOTALL)
    assert kept == typed["note"]
    checked = re.findall(r'value="(\w+)" required checked', page)
    assert checked == ([data["outcome"]] if data.get("outcome") in {"right", "wrong", "partly"} else [])
    assert not VerdictOutcome.objects.exists()


@pytest.mark.parametrize("note", ["Replicas\x00 helped.", "\x00"])
def test_a_note_holding_a_nul_is_refused_in_words_and_shown_again_without_it(client, alice, done, note):
    client.force_login(alice)
    response = page_post(client, done, outcome="right", note=note)
    assert response.status_code == 400
    page = unescape(response.content.decode())
    assert "It holds a NUL character (\\x00), which is not text: remove it." in page
    assert "\x00" not in page
    assert not VerdictOutcome.objects.exists()


def test_someone_elses_shared_verdict_is_shown_without_the_form_and_a_post_is_refused(client, bob, done):
    client.force_login(bob)
    assert "outcome-form" not in client.get(done.get_absolute_url()).content.decode()
    response = page_post(client, done, outcome="wrong")
    assert "Only the asker of this question, or staff, may judge its verdict." in said(response)
    assert not VerdictOutcome.objects.exists()


def test_someone_elses_private_question_does_not_exist(client, bob, alice, house):
    private = store(house, Debate({"Panelist A": Voice()}), owner=alice)
    client.force_login(bob)
    assert client.post(f"/q/{private.pk}/outcome/", {"outcome": "right"}).status_code == 404


@pytest.mark.parametrize(
    ("status", "verdict", "words"),
    [
        ("running", "", "The debate has not finished yet: judge its verdict once it is in."),
        ("failed", "", "This question has no verdict to judge: the run failed."),
        ("cancelled", "", "This question has no verdict to judge: the debate was cancelled."),
        ("needs_review", "No consensus", "The panel reached no verdict: a person decides first"),
    ],
)
def test_a_question_without_a_verdict_to_judge_is_refused_in_words(client, alice, house, status, verdict, words):
    question = store(house, Debate({"Panelist A": Voice()}, status=status), owner=alice, verdict=verdict)
    client.force_login(alice)
    assert "outcome-form" not in client.get(question.get_absolute_url()).content.decode()
    assert words in said(page_post(client, question, outcome="right"))
    assert not VerdictOutcome.objects.exists()


# --- the API --------------------------------------------------------------------------------------


def test_a_script_judges_a_verdict_with_its_token(client, alice, done):
    response = api_post(client, done, {"outcome": "wrong", "note": "It failed in production."}, **bearer(alice))
    assert response.status_code == 200
    body = response.json()
    assert {k: body[k] for k in ("question", "outcome", "note", "marked_by")} == {
        "question": done.pk,
        "outcome": "wrong",
        "note": "It failed in production.",
        "marked_by": "alice",
    }
    assert VerdictOutcome.objects.get().value == "wrong"


@pytest.mark.parametrize(
    ("payload", "status", "field", "words"),
    [
        ({"outcome": 1}, 400, "outcome", "Must be a string, not a number."),
        ({"outcome": True}, 400, "outcome", "Must be a string, not true or false."),
        ({"outcome": "right", "note": ["x"]}, 400, "note", "Must be a string, not a list."),
        ({"outcome": "right", "verdict": "x"}, 400, "verdict", "Unknown field: the fields are outcome, note."),
        ({"outcome": "sort of"}, 400, "outcome", "The outcome must be right, wrong or partly, not 'sort of'."),
        ({"note": "no value"}, 400, "outcome", "The outcome must be right, wrong or partly, not nothing."),
        ({"outcome": "right", "note": "x" * (NOTE_LIMIT + 1)}, 400, "note", "at most 2,000 are kept."),
        ({"outcome": "right", "note": "Shard\ud800"}, 400, "note", "It holds a lone UTF-16 surrogate (\\ud800)"),
        ({"outcome": "right", "note": "Shard\x00"}, 400, "note", "It holds a NUL character (\\x00)"),
        ({"outcome": "right\ud800"}, 400, "outcome", "It holds a lone UTF-16 surrogate (\\ud800)"),
    ],
)
def test_the_api_refuses_a_bad_body_with_the_field_and_the_words(client, alice, done, payload, status, field, words):
    response = api_post(client, done, payload, **bearer(alice))
    assert response.status_code == status
    assert any(words in message for message in response.json()["fields"][field])
    assert not VerdictOutcome.objects.exists()


def test_the_api_refuses_what_is_not_yours_not_finished_or_not_json(client, alice, bob, done, house):
    assert api_post(client, done, {"outcome": "right"}).status_code == 401
    response = api_post(client, done, {"outcome": "right"}, **bearer(bob))
    refused = (response.status_code, response.json()["error"])
    assert refused == (403, "Only the asker of this question, or staff, may judge its verdict.")
    private = store(house, Debate({"Panelist A": Voice()}), owner=alice)
    hidden = api_post(client, private, {"outcome": "right"}, **bearer(bob))
    assert hidden.json() == {"error": f"There is no question {private.pk} that you can see.", "fields": {}}
    running = store(house, Debate({"Panelist A": Voice()}, status="running"), owner=alice, verdict="")
    response = api_post(client, running, {"outcome": "right"}, **bearer(alice))
    refused = (response.status_code, response.json()["error"])
    assert refused == (409, "The debate has not finished yet: judge its verdict once it is in.")
    assert api_post(client, done, "[1, 2]", **bearer(alice)).json()["error"] == "The body must be a JSON object."
    assert client.get(f"/api/questions/{done.pk}/outcome", **bearer(alice)).status_code == 405
    assert not VerdictOutcome.objects.exists()


# --- the CLI --------------------------------------------------------------------------------------


def test_the_cli_judges_a_verdict_as_an_operator_or_as_a_user(capsys, alice, done):
    call_command("outcome", str(done.pk), "right", "--note", "Shipped; reads fell by 80%.")
    assert capsys.readouterr().out == f"Question {done.pk}: the verdict was right. Note: Shipped; reads fell by 80%.\n"
    assert VerdictOutcome.objects.get().marked_by is None
    call_command("outcome", str(done.pk), "partly", "--user", "alice")
    assert (VerdictOutcome.objects.get().value, VerdictOutcome.objects.get().marked_by) == ("partly", alice)


@pytest.mark.parametrize(
    ("arguments", "words"),
    [
        (["right", "--user", "bob"], "Only the asker of this question, or staff, may judge its verdict."),
        (["perhaps"], "The outcome must be right, wrong or partly, not 'perhaps'."),
        (["right", "--note", "x" * (NOTE_LIMIT + 1)], "The note is 2,001 characters long: at most 2,000 are kept."),
        (["right", "--user", "nobody"], "There is no user 'nobody'."),
    ],
)
def test_the_cli_refuses_in_words(bob, done, arguments, words):
    with pytest.raises(CommandError, match=re.escape(words)):
        call_command("outcome", str(done.pk), *arguments)
    assert not VerdictOutcome.objects.exists()


def test_the_cli_refuses_an_unfinished_or_unknown_question(alice, house):
    running = store(house, Debate({"Panelist A": Voice()}, status="running"), owner=alice, verdict="")
    with pytest.raises(CommandError, match="The debate has not finished yet"):
        call_command("outcome", str(running.pk), "right")
    with pytest.raises(CommandError, match=re.escape("There is no question 999.")):
        call_command("outcome", "999", "right")
