"""Hostile or careless HTTP: every refusal says what was wrong, the API always in JSON, the log in one line."""

import json
import logging
from urllib.parse import urlencode

import pytest
from django.conf import settings

from debates.models import Question


def ask(client, body: str, token: dict):
    return client.post("/api/questions", body, content_type="application/json", **token)


def problems(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [record for record in caplog.records if record.levelno >= logging.WARNING]


def assert_logged_in_one_line(caplog: pytest.LogCaptureFixture) -> None:
    """A client's mistake is one WARNING line: no ERROR, no traceback."""
    [record] = problems(caplog)
    assert (record.levelno, record.exc_info, record.exc_text) == (logging.WARNING, None, None)


@pytest.mark.parametrize("body", ["[" * 100_000 + "]" * 100_000, '{"text": ' + "[" * 100_000 + "]" * 100_000 + "}"])
def test_json_nested_absurdly_deep_is_a_400_in_words(script, token, offline_panel, no_runs, body):
    response = ask(script, body, token)
    assert response.status_code == 400
    assert response.json() == {"error": "The body is nested too deeply to read.", "fields": {}}
    assert not Question.objects.exists()


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("text", 42, "Must be a string, not a number."),
        ("text", ["Read", "replicas?"], "Must be a string, not a list."),
        ("text", {"q": "Shard?"}, "Must be a string, not an object."),
        ("text", True, "Must be a string, not true or false."),
        ("context", ["a", "b"], "Must be a string, not a list."),
        ("context", 1.5, "Must be a string, not a number."),
        ("panel", ["offline"], "Must be a string, not a list."),
        ("panel", 7, "Must be a string, not a number."),
        ("criticality", ["high"], "Must be a string, not a list."),
        ("criticality", 3, "Must be a string, not a number."),
        ("force_panel", "perhaps", "Must be true or false, not a string."),
        ("force_panel", 1, "Must be true or false, not a number."),
        ("options", "Shard\nReplicate", "Must be a list of strings, not a string."),
        ("options", {"Shard": 1}, "Must be a list of strings, not an object."),
    ],
)
def test_a_wrongly_typed_field_is_refused_by_name_and_nothing_runs(
    script, token, offline_panel, no_runs, field, value, message
):
    payload = {"text": "Shard or add read replicas?", "panel": "offline", field: value}
    response = ask(script, json.dumps(payload), token)
    assert response.status_code == 400
    assert response.json() == {"error": "The question was not accepted.", "fields": {field: [message]}}
    assert not Question.objects.exists()
    assert no_runs == []


def test_an_unknown_field_is_refused_rather_than_ignored(script, token, offline_panel, no_runs):
    payload = {"text": "Shard?", "panel": "offline", "forcepanel": True}
    response = ask(script, json.dumps(payload), token)
    assert response.status_code == 400
    (message,) = response.json()["fields"]["forcepanel"]
    assert message.startswith("Unknown field: the fields are text, context, panel, criticality, force_panel, options")
    assert not Question.objects.exists()


def test_the_longest_question_the_form_accepts_fits_the_body_limit(script, token, offline_panel, no_runs):
    """Every character escaped (\\ud83e\\udd14: 12 bytes) is the worst case the body limit allows for."""
    limits = settings.TEOREMA
    payload = {"text": "🤔" * limits["MAX_QUESTION_CHARS"], "context": "🤔" * limits["MAX_CONTEXT_CHARS"]}
    assert ask(script, json.dumps(payload), token).status_code == 201


def test_a_body_over_the_limit_is_a_json_400_saying_so_in_one_log_line(script, token, offline_panel, caplog):
    body = json.dumps({"text": "x" * (settings.DATA_UPLOAD_MAX_MEMORY_SIZE + 1)})
    response = ask(script, body, token)
    assert response.status_code == 400
    assert response.json()["error"].startswith("The request is too large: at most ")
    assert_logged_in_one_line(caplog)


def test_a_page_refuses_a_body_over_the_limit_in_words_in_one_log_line(client, alice, offline_panel, caplog):
    client.force_login(alice)
    response = client.post("/", {"text": "x" * (settings.DATA_UPLOAD_MAX_MEMORY_SIZE + 1)})
    assert response.status_code == 400
    assert response["Content-Type"].startswith("text/html")
    assert "The request is too large: at most " in response.content.decode()
    assert_logged_in_one_line(caplog)


def test_a_page_refuses_too_many_fields_in_words_in_one_log_line(client, alice, offline_panel, caplog):
    client.force_login(alice)
    body = urlencode([(f"f{n}", "x") for n in range(3000)])
    response = client.post("/", body, content_type="application/x-www-form-urlencoded")
    assert response.status_code == 400
    limit = settings.DATA_UPLOAD_MAX_NUMBER_FIELDS
    assert f"The request has too many fields: at most {limit} are accepted." in response.content.decode()
    assert_logged_in_one_line(caplog)


def test_a_host_not_served_is_a_400_in_one_log_line(client, caplog):
    response = client.get("/", HTTP_HOST="evil.example")
    assert response.status_code == 400
    assert_logged_in_one_line(caplog)


def test_a_method_the_api_does_not_take_is_a_json_405_naming_the_allowed_one(script, token, alice, offline_panel):
    listing = script.get("/api/questions", **token)
    assert (listing.status_code, listing["Allow"]) == (405, "POST")
    assert listing.json()["error"] == "GET is not allowed here: use POST."
    question = Question.objects.create(owner=alice, panel=offline_panel, text="Shard?", criticality="low")
    # A bearer token is no cookie: no CSRF check stands between a script and the answer.
    deleting = script.delete(f"/api/questions/{question.pk}", **token)
    assert (deleting.status_code, deleting["Allow"]) == (405, "GET")
    assert deleting.json()["error"] == "DELETE is not allowed here: use GET."
    assert Question.objects.filter(pk=question.pk).exists()


@pytest.mark.parametrize("path", ["/api/nothing/here", "/api/questions/abc", "/api/questions/"])
def test_an_unknown_api_path_is_a_json_404(script, token, path):
    response = script.get(path, **token)
    assert response.status_code == 404
    assert response.json()["error"] == "There is no such API endpoint: see docs/api.md."


def test_pages_keep_their_html_404(client):
    response = client.get("/nothing/here/")
    assert response.status_code == 404
    assert response["Content-Type"].startswith("text/html")


def test_a_server_error_in_the_api_is_json_without_the_details(script, token, alice, offline_panel, monkeypatch):
    question = Question.objects.create(owner=alice, panel=offline_panel, text="Shard?", criticality="low")
    monkeypatch.setattr("debates.service.snapshot.build", lambda *args: 1 / 0)
    script.raise_request_exception = False
    response = script.get(f"/api/questions/{question.pk}", **token)
    assert response.status_code == 500
    assert response.json() == {"error": "The server failed on this request; its log says why.", "fields": {}}


@pytest.mark.parametrize(
    ("field", "value", "words"),
    [
        ("text", "Shard\ud800 or replicate?", "It holds a lone UTF-16 surrogate (\\ud800), half of a character"),
        ("text", "Shard\x00 or replicate?", "It holds a NUL character (\\x00), which is not text: remove it."),
        ("context", "Reads dominate\udfff", "It holds a lone UTF-16 surrogate (\\udfff)"),
        ("options", ["Shard\ud800", "Replicate"], "It holds a lone UTF-16 surrogate (\\ud800)"),
        ("options", ["Shard\x00", "Replicate"], "It holds a NUL character (\\x00)"),
        ("voices", ["GPT\ud800", "Claude"], "It holds a lone UTF-16 surrogate (\\ud800)"),
        ("moderator", "Judge\x00", "It holds a NUL character (\\x00)"),
        ("panel", "offline\ud800", "It holds a lone UTF-16 surrogate (\\ud800)"),
        ("criticality", "high\x00", "It holds a NUL character (\\x00)"),
    ],
)
def test_a_nul_or_a_lone_surrogate_is_refused_in_words_before_the_hours_limit_is_spent(
    script, token, offline_panel, no_runs, settings, field, value, words
):
    settings.TEOREMA = settings.TEOREMA | {"QUESTIONS_PER_HOUR": 1}
    payload = {"text": "Shard or add read replicas?", "panel": "offline", field: value}
    response = ask(script, json.dumps(payload), token)
    assert response.status_code == 400
    assert response.json()["error"] == "The question was not accepted."
    [(named, [message])] = response.json()["fields"].items()
    assert (named, message[: len(words)]) == (field, words)
    assert not Question.objects.exists()
    # The hour's one question is still there to ask.
    assert ask(script, json.dumps({"text": "Shard?", "panel": "offline"}), token).status_code == 201


def test_a_hundred_thousand_voices_are_refused_at_once_before_the_hours_limit_is_spent(
    script, token, offline_panel, no_runs, settings
):
    settings.TEOREMA = settings.TEOREMA | {"QUESTIONS_PER_HOUR": 1}
    payload = {"text": "Shard?", "panel": "offline", "voices": [str(i) for i in range(120_000)]}
    response = ask(script, json.dumps(payload), token)
    assert response.status_code == 400
    assert response.json()["fields"] == {"voices": ["Pick at most 26 voices: 120,000 were given."]}
    assert ask(script, json.dumps({"text": "Shard?", "panel": "offline"}), token).status_code == 201
