"""The JSON API: token auth, the same validation as the form, the debate as JSON, no key."""

import json
from datetime import timedelta

import pytest
from django.utils import timezone

from debates.models import ApiToken, Contribution, Question, Round
from debates.tokens import assign_secret
from tests.fakes.roster import API_KEY


def bearer(user) -> dict:
    token = ApiToken(user=user, name="script")
    raw = assign_secret(token)
    token.save()
    return {"HTTP_AUTHORIZATION": f"Bearer {raw}"}


def post(client, payload, **headers):
    body = payload if isinstance(payload, str) else json.dumps(payload)
    return client.post("/api/questions", body, content_type="application/json", **headers)


@pytest.fixture
def token(alice):
    return bearer(alice)


def test_a_script_asks_with_its_token_and_gets_the_urls(client, token, alice, offline_panel, no_runs):
    response = post(client, {"text": "Shard?", "panel": "offline", "criticality": "high", "force_panel": True}, **token)
    assert response.status_code == 201
    question = Question.objects.get()
    assert (question.owner, question.criticality, question.force_panel) == (alice, "high", True)
    assert response.json() == {
        "id": question.pk,
        "url": f"http://testserver/q/{question.pk}/",
        "api_url": f"http://testserver/api/questions/{question.pk}",
        "ws_url": f"ws://testserver/ws/questions/{question.pk}/",
    }
    assert no_runs == [question]


@pytest.mark.parametrize("headers", [{}, {"HTTP_AUTHORIZATION": "Bearer tk_wrong"}, {"HTTP_AUTHORIZATION": "Basic x"}])
def test_asking_needs_a_valid_token(client, offline_panel, no_runs, headers):
    response = post(client, {"text": "Shard?", "panel": "offline"}, **headers)
    assert response.status_code == 401
    assert "Bearer" in response.json()["error"]


def test_a_tokens_last_use_is_written_once_a_minute_at_most(client, token, alice, offline_panel, make_question):
    question = make_question(alice, offline_panel, status="done")
    url = f"/api/questions/{question.pk}"
    assert client.get(url, **token).status_code == 200
    used = ApiToken.objects.get()
    assert used.last_used_at is not None  # a first use is written at once

    for ago, written in [(timedelta(seconds=30), False), (timedelta(minutes=2), True)]:
        then = timezone.now() - ago
        ApiToken.objects.update(last_used_at=then)
        assert client.get(url, **token).status_code == 200
        assert (ApiToken.objects.get().last_used_at != then) is written


def test_a_browser_session_cannot_post_without_a_token(client, alice, offline_panel, no_runs):
    client.force_login(alice)
    assert post(client, {"text": "Shard?", "panel": "offline"}).status_code == 401


def test_bad_input_gets_400_with_the_field_errors(client, token, offline_panel, no_runs):
    response = post(client, {"text": "  ", "panel": "nope", "criticality": "extreme"}, **token)
    assert response.status_code == 400
    assert response.json()["fields"] == {
        "text": ["Write a question: it is empty."],
        "panel": ["There is no panel “nope”. The panels: offline."],
        "criticality": ["“extreme” is not a criticality: use low, medium or high."],
    }
    assert post(client, "{not json", **token).json()["error"] == "The body is not valid JSON."
    assert post(client, "[1, 2]", **token).status_code == 400
    assert not Question.objects.exists()


def test_the_api_is_rate_limited_too(client, token, offline_panel, no_runs, settings):
    settings.TEOREMA = {**settings.TEOREMA, "QUESTIONS_PER_HOUR": 1}
    assert post(client, {"text": "One", "panel": "offline"}, **token).status_code == 201
    refused = post(client, {"text": "Two", "panel": "offline"}, **token)
    assert refused.status_code == 429
    assert int(refused["Retry-After"]) > 0


def test_get_returns_the_debate_and_never_a_key(client, token, alice, offline_panel, make_question):
    question = make_question(alice, offline_panel, status="done", verdict="Replicas.", calls=1, tokens_in=5)
    answer = Round.objects.create(question=question, index=0, kind="answer", title="Round 0", status="done")
    Contribution.objects.create(
        round=answer, seat="p1", label="Panelist A", kind="answer", status="done", text="Replicas."
    )
    body = client.get(f"/api/questions/{question.pk}", **token).json()
    assert (body["status"], body["verdict"], body["calls"], body["tokens_in"]) == ("done", "Replicas.", 1, 5)
    assert body["rounds"][0]["contributions"][0]["text"] == "Replicas."
    assert {"phase", "synthesis", "consensus", "cost", "tokens_out"} <= body.keys()
    raw = json.dumps(body)
    assert API_KEY not in raw
    assert "api_key" not in raw


def test_get_accepts_the_session_and_hides_other_users_questions(client, alice, bob, offline_panel, make_question):
    question = make_question(alice, offline_panel)
    client.force_login(alice)
    assert client.get(f"/api/questions/{question.pk}").status_code == 200
    assert client.get(f"/api/questions/{question.pk}", **bearer(bob)).status_code == 404
    client.logout()
    assert client.get(f"/api/questions/{question.pk}").status_code == 401


def test_identities_stay_hidden_until_the_run_is_over(client, token, alice, offline_panel, make_question):
    roster = [
        {
            "seat": "p1",
            "label": "Panelist A",
            "name": "Claude",
            "model": "claude-x",
            "family": "claude",
            "provider": "Anthropic",
            "method": "none",
        }
    ]
    question = make_question(alice, offline_panel, status="running", roster=roster)
    running = client.get(f"/api/questions/{question.pk}", **token).json()
    assert running["identities"] == []
    assert "claude" not in json.dumps(running).casefold()
    Question.objects.filter(pk=question.pk).update(status="done")
    finished = client.get(f"/api/questions/{question.pk}", **token).json()
    assert [who["model"] for who in finished["identities"]] == ["claude-x"]


# --- only an explicit cancel cancels (issue 41) ------------------------------------------------


def cancel(client, question, user):
    return client.post(f"/api/questions/{question.pk}/cancel", "{}", content_type="application/json", **bearer(user))


def test_the_asker_cancels_a_running_question_and_a_reader_cannot(client, alice, bob, offline_panel, make_question):
    running = make_question(alice, offline_panel, status="running", visibility="users")
    refused = cancel(client, running, bob)  # bob may read it: not cancel it
    assert (refused.status_code, refused.json()["error"]) == (
        404,
        f"There is no question {running.pk} that you can see.",
    )
    running.refresh_from_db()
    assert not running.cancel_requested
    stopping = cancel(client, running, alice)
    assert (stopping.status_code, stopping.json()) == (202, {"id": running.pk, "status": "cancelled", "stopping": True})
    running.refresh_from_db()
    assert running.cancel_requested


def test_cancelling_a_finished_question_says_so_and_changes_nothing(client, alice, offline_panel, make_question):
    done = make_question(alice, offline_panel, status="done")
    answer = cancel(client, done, alice)
    assert (answer.status_code, answer.json()) == (200, {"id": done.pk, "status": "done", "stopping": False})
