"""What the OpenAI-compatible endpoint makes of a request before any debate runs: the hour's limit,
the thread, the context's limit (the real clients drive the rest in tests/integrations)."""

import json

import pytest

from debates.integrations.openai.request import fitted
from debates.models import Question
from tests.viewer.test_api import bearer


def complete(client, headers, **body):
    payload = {"model": "teorema/offline", "messages": [{"role": "user", "content": "Shard?"}]} | body
    return client.post("/v1/chat/completions", json.dumps(payload), content_type="application/json", **headers)


def test_past_the_hours_limit_it_is_a_429_with_retry_after(client, alice, offline_panel, no_runs, settings):
    settings.TEOREMA = settings.TEOREMA | {"QUESTIONS_PER_HOUR": 1}
    headers = bearer(alice)
    assert complete(client, headers, stream=True).status_code == 200
    refused = complete(client, headers, messages=[{"role": "user", "content": "Replicate?"}])
    assert refused.status_code == 429
    assert int(refused.headers["Retry-After"]) > 0
    assert refused.json()["error"]["code"] == "rate_limit_exceeded"
    assert "questions" in refused.json()["error"]["message"]
    assert Question.objects.count() == 1


def test_a_signed_in_browser_session_is_no_key(client, alice, offline_panel):
    client.force_login(alice)
    assert client.get("/v1/models").status_code == 401
    assert complete(client, {}).status_code == 401


@pytest.mark.parametrize("method", ["get", "put", "delete"])
def test_only_post_asks(client, alice, offline_panel, method):
    answer = getattr(client, method)("/v1/chat/completions", **bearer(alice))
    assert answer.status_code == 405
    assert "use POST" in answer.json()["error"]["message"]


def test_the_body_must_be_a_json_object(client, alice, offline_panel):
    for body in ("{not json", "[1, 2]"):
        answer = client.post("/v1/chat/completions", body, content_type="application/json", **bearer(alice))
        assert answer.status_code == 400
        assert answer.json()["error"]["type"] == "invalid_request_error"


def test_a_long_chat_keeps_its_latest_turns_within_the_context_limit(settings):
    settings.TEOREMA = settings.TEOREMA | {"MAX_CONTEXT_CHARS": 500}
    turns = [f"User: turn {n} " + "x" * 60 for n in range(20)]
    context = fitted(["Be brief."], turns)
    assert len(context) <= 500
    assert context.startswith("Be brief.")
    assert "turn 19" in context
    assert "turn 0 " not in context
    assert "(earlier turns of the conversation left out)" in context
