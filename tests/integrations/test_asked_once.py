"""One call, one debate, whatever happens to it: the real ``openai``, LiteLLM and LangChain clients,
at their default settings (they retry a 5xx, a 409, a 429 and a timeout twice), against a real
server. A debate that fails or is cancelled is an error none of them retries; a retry after a
client's timeout, a repeated Idempotency-Key and the same messages while the run goes get the run
already asked."""

import threading
import time
import uuid

import httpx
import pytest

from tests.fakes.answers import SYNTHESIS
from tests.fakes.provider_server import Script
from tests.integrations.chat_clients import CLIENTS, retries_seen
from tests.integrations.conftest import Teorema, voice_answer

FAMILIES = ("alpha", "beta", "gamma")


def fresh() -> str:
    """A question no other test asks (a run of the same messages still going would be joined)."""
    return f"Read replicas or sharding for report {uuid.uuid4().hex[:8]}?"


def asked_of(teorema: Teorema, text: str) -> list[tuple[int, str]]:
    return teorema.query("SELECT id, status FROM debates_question WHERE text = ? ORDER BY id", text)


def post(teorema: Teorema, path: str, body: dict | None = None, **headers: str) -> httpx.Response:
    auth = {"Authorization": f"Bearer {teorema.tokens['alice']}"}
    return httpx.post(f"{teorema.url}{path}", json=body or {}, headers=auth | headers, timeout=60)


def finished(teorema: Teorema, text: str) -> list[tuple[int, str]]:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        found = asked_of(teorema, text)
        if found and all(status in {"done", "failed", "cancelled"} for _, status in found):
            return found
        time.sleep(0.1)
    raise AssertionError(f"waited 60 s for the runs of {text!r} to end")


@pytest.fixture
def held(fake_provider):
    """Three voices that write nothing until let go (then agree), and a moderator that answers."""
    let_go = threading.Event()
    for family in FAMILIES:
        fake_provider.script(
            f"model-{family}",
            Script(answer=voice_answer(family), tokens_per_second=400, hold=lambda: not let_go.is_set()),
        )
    fake_provider.script("model-moderator", Script(answer=SYNTHESIS, tokens_per_second=400))
    yield let_go
    let_go.set()  # a held request of the fake ends with the test


def wait_until(condition, what: str) -> None:
    deadline = time.monotonic() + 60
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"waited 60 s for {what}")
        time.sleep(0.05)


@pytest.mark.parametrize("name", CLIENTS)
def test_a_failed_debate_is_one_debate_and_one_error_for_every_client(teorema, fake_provider, name):
    for model in ("model-alpha", "model-beta", "model-gamma", "model-moderator"):  # a stand-in would step in
        fake_provider.script(model, *[Script(status=500, error="provider down")] * 6)
    text = fresh()
    with retries_seen() as retried, pytest.raises(Exception, match="The debate failed") as raised:
        CLIENTS[name](teorema.url, teorema.tokens["alice"], [{"role": "user", "content": text}])
    assert retried == []
    [(question, status)] = asked_of(teorema, text)
    assert status == "failed"
    assert f"/q/{question}/" in str(raised.value)


@pytest.mark.parametrize("name", CLIENTS)
def test_a_cancel_from_another_client_stays_a_cancel(teorema, held, name):
    text = fresh()
    outcome: list[BaseException | str] = []

    def ask() -> None:
        try:
            outcome.append(CLIENTS[name](teorema.url, teorema.tokens["alice"], [{"role": "user", "content": text}]))
        except Exception as error:
            outcome.append(error)

    with retries_seen() as retried:
        asking = threading.Thread(target=ask)
        asking.start()
        wait_until(lambda: asked_of(teorema, text), "the question")
        [(question, _)] = asked_of(teorema, text)
        assert post(teorema, f"/api/questions/{question}/cancel").status_code == 202  # the page's button, over the API
        asking.join(60)
    [error] = outcome
    assert "The debate cancelled" in str(error)
    assert retried == []
    held.set()
    assert finished(teorema, text) == [(question, "cancelled")]


@pytest.mark.parametrize("name", CLIENTS)
def test_a_retry_after_the_clients_timeout_gets_the_debate_already_running(teorema, held, name):
    """The client gives up on the first try (its timeout, shorter than the debate) and asks again, as
    it does by default: the retry follows the run the first try started."""
    text = fresh()

    def let_go_once_retried() -> None:  # the voices write only after the first try gave up
        wait_until(lambda: retried, "the client's retry")
        held.set()

    with retries_seen() as retried:
        threading.Thread(target=let_go_once_retried).start()
        content = CLIENTS[name](teorema.url, teorema.tokens["alice"], [{"role": "user", "content": text}], timeout=4)
    assert retried
    assert content.startswith(SYNTHESIS.strip()[:40])
    [(question, status)] = asked_of(teorema, text)
    assert status == "done"
    assert f"[Teorema question {question}]" in content


def test_the_same_messages_while_the_run_goes_join_it(teorema, held):
    text = fresh()
    answers: list[str] = []
    messages = [{"role": "user", "content": text}]
    askers = [
        threading.Thread(
            target=lambda: answers.append(CLIENTS["openai"](teorema.url, teorema.tokens["alice"], messages))
        )
        for _ in range(2)
    ]
    askers[0].start()
    wait_until(lambda: asked_of(teorema, text), "the first question")
    askers[1].start()
    time.sleep(0.5)  # the second call is in; nothing else could tell it from one not sent yet
    held.set()
    for asker in askers:
        asker.join(60)
    assert [status for _, status in asked_of(teorema, text)] == ["done"]
    assert len(answers) == 2
    assert answers[0] == answers[1]


def test_the_same_messages_from_another_user_are_their_own_question(teorema, scripted):
    text = fresh()
    for user in ("alice", "bob"):
        CLIENTS["openai"](teorema.url, teorema.tokens[user], [{"role": "user", "content": text}])
    assert len(asked_of(teorema, text)) == 2


def test_the_same_messages_asked_anew_after_the_run_are_a_new_question(teorema, scripted):
    text = fresh()
    for _ in range(2):
        CLIENTS["openai"](teorema.url, teorema.tokens["alice"], [{"role": "user", "content": text}])
    assert [status for _, status in asked_of(teorema, text)] == ["done", "done"]


def test_an_idempotency_key_gets_its_question_again_and_only_its_own(teorema, scripted):
    text, key = fresh(), uuid.uuid4().hex
    body = {"model": "teorema/house", "messages": [{"role": "user", "content": text}]}
    first = post(teorema, "/v1/chat/completions", body, **{"Idempotency-Key": key})
    again = post(teorema, "/v1/chat/completions", body | {"stream": False}, **{"Idempotency-Key": key})
    assert first.status_code == again.status_code == 200
    assert again.json()["choices"][0]["message"]["content"] == first.json()["choices"][0]["message"]["content"]
    [(question, _)] = asked_of(teorema, text)

    other = body | {"messages": [{"role": "user", "content": fresh()}]}
    refused = post(teorema, "/v1/chat/completions", other, **{"Idempotency-Key": key})
    assert refused.status_code == 422
    assert refused.headers["x-should-retry"] == "false"
    assert f"This Idempotency-Key asked question {question}, with another request" in refused.json()["error"]["message"]
    assert refused.json()["error"]["param"] == "Idempotency-Key"


def test_an_answer_the_server_cannot_give_says_not_to_retry(teorema, fake_provider):
    for model in ("model-alpha", "model-beta", "model-gamma", "model-moderator"):
        fake_provider.script(model, *[Script(status=500, error="provider down")] * 6)
    answer = post(
        teorema, "/v1/chat/completions", {"model": "teorema/house", "messages": [{"role": "user", "content": fresh()}]}
    )
    assert answer.status_code == 424  # Failed Dependency: no client retries a 4xx but 408, 409 and 429
    assert answer.reason_phrase == "Failed Dependency"
    assert answer.headers["x-should-retry"] == "false"
    assert answer.json()["error"]["code"] == "debate_failed"
