"""The OpenAI-compatible endpoint, driven by the official ``openai`` package over real HTTP."""

import time
from collections import Counter

import httpx
import openai
import pytest

from tests.fakes.answers import SYNTHESIS
from tests.fakes.provider_server import Script
from tests.integrations.conftest import Teorema, voice_answer

QUESTION = "Read replicas or sharding for our reporting load?"


def client(teorema: Teorema, user: str = "alice", **options) -> openai.OpenAI:
    return openai.OpenAI(base_url=f"{teorema.url}/v1", api_key=teorema.tokens[user], max_retries=0, **options)


def asked(teorema: Teorema, question_id: int) -> dict:
    answer = httpx.get(
        f"{teorema.url}/api/questions/{question_id}", headers={"Authorization": f"Bearer {teorema.tokens['alice']}"}
    )
    return answer.json()


def newest(teorema: Teorema) -> int:
    return teorema.query("SELECT max(id) FROM debates_question")[0][0]


def test_each_runnable_panel_is_a_model(teorema):
    assert [model.id for model in client(teorema).models.list().data] == ["teorema/house"]


def test_each_model_carries_the_estimate_of_a_run(teorema):
    listed = httpx.get(f"{teorema.url}/v1/models", headers={"Authorization": f"Bearer {teorema.tokens['alice']}"})
    estimate = listed.json()["data"][0]["estimate"]
    assert estimate["currency"] == "USD"
    assert float(estimate["low"]) <= float(estimate["expected"]) <= float(estimate["high"])
    assert estimate["calls"]["low"] <= estimate["calls"]["expected"] <= estimate["calls"]["high"]


def test_a_completion_carries_the_synthesis_as_content_and_the_debate_as_reasoning(teorema, scripted):
    reply = client(teorema).chat.completions.create(
        model="teorema/house", messages=[{"role": "user", "content": QUESTION}]
    )
    message = reply.choices[0].message
    question = newest(teorema)
    assert message.content.startswith(SYNTHESIS.strip()[:40])
    assert f"[Teorema question {question}]({teorema.url}/q/{question}/)" in message.content
    reasoning = message.model_extra["reasoning_content"]
    stored = asked(teorema, question)
    spoken = Counter(
        c["text"].strip() for r in stored["rounds"] for c in r["contributions"] if c["kind"] in {"answer", "debate"}
    )
    assert spoken.total() >= 3
    for text, times in spoken.items():  # every voice's every contribution, whole, once each
        assert reasoning.count(f"\n{text}\n") == times, reasoning
    assert "## Round 0" in reasoning
    assert stored["status"] == "done"
    assert stored["source"] == "openai"
    assert reply.usage.prompt_tokens == stored["tokens_in"]
    assert reply.usage.completion_tokens == stored["tokens_out"]
    assert teorema.query("SELECT text, source FROM debates_question WHERE id = ?", question) == [(QUESTION, "openai")]


def test_the_stream_sends_the_debate_first_then_the_synthesis_then_the_whole_runs_usage(teorema, scripted):
    stream = client(teorema).chat.completions.create(
        model="teorema/house",
        messages=[{"role": "user", "content": QUESTION}],
        stream=True,
        stream_options={"include_usage": True},
    )
    reasoning, content, order, usage, finish = [], [], [], None, None
    for chunk in stream:
        if chunk.usage:
            usage = chunk.usage
        for choice in chunk.choices:
            finish = choice.finish_reason or finish
            if text := (choice.delta.model_extra or {}).get("reasoning_content"):
                reasoning.append(text)
                order.append("reasoning")
            if choice.delta.content:
                content.append(choice.delta.content)
                order.append("content")
    assert order.index("content") > order.index("reasoning")
    assert "reasoning" not in order[order.index("content") :]  # the answer is not interrupted by the debate
    assert "".join(content).startswith(SYNTHESIS.strip())
    assert len(reasoning) > 3  # it streamed, not in one piece
    stored = asked(teorema, newest(teorema))
    assert finish == "stop"
    assert usage.total_tokens == stored["tokens_in"] + stored["tokens_out"]


def test_think_tags_carry_the_debate_for_clients_that_read_only_the_content(teorema, scripted):
    stream = client(teorema).chat.completions.create(
        model="teorema/house",
        messages=[{"role": "user", "content": QUESTION}],
        stream=True,
        extra_body={"reasoning_format": "think"},
    )
    text = "".join(choice.delta.content or "" for chunk in stream for choice in chunk.choices)
    assert text.startswith("<think>\n")
    assert text.count("<think>") == 1
    assert text.count("</think>") == 1
    thought, _, answer = text.partition("</think>")
    assert voice_answer("alpha") in thought
    assert SYNTHESIS.strip() in answer


def test_a_later_turn_is_a_follow_up_of_our_earlier_answer(teorema, scripted):
    openai_client = client(teorema)
    first = openai_client.chat.completions.create(
        model="teorema/house", messages=[{"role": "user", "content": QUESTION}]
    )
    parent = newest(teorema)
    openai_client.chat.completions.create(
        model="teorema/house",
        messages=[
            {"role": "system", "content": "Answer for a team of three."},
            {"role": "user", "content": QUESTION},
            {"role": "assistant", "content": first.choices[0].message.content},
            {"role": "user", "content": "And if writes triple next year?"},
        ],
    )
    follow_up = asked(teorema, newest(teorema))
    assert follow_up["follow_up_of"] == parent
    assert follow_up["text"] == "And if writes triple next year?"


def test_a_chat_that_is_not_ours_becomes_the_questions_context(teorema, scripted):
    client(teorema).chat.completions.create(
        model="teorema/house",
        messages=[
            {"role": "user", "content": "We run Postgres 16 on one box."},
            {"role": "assistant", "content": "Noted: one Postgres 16 server."},
            {"role": "user", "content": QUESTION},
        ],
    )
    question = asked(teorema, newest(teorema))
    assert question["follow_up_of"] is None
    assert "User: We run Postgres 16 on one box." in question["context"]
    assert "Assistant: Noted: one Postgres 16 server." in question["context"]


def test_another_users_question_is_never_followed_up(teorema, scripted):
    client(teorema, "bob").chat.completions.create(
        model="teorema/house", messages=[{"role": "user", "content": QUESTION}]
    )
    bobs = newest(teorema)
    client(teorema).chat.completions.create(
        model="teorema/house",
        messages=[
            {"role": "assistant", "content": f"[Teorema question {bobs}]({teorema.url}/q/{bobs}/)"},
            {"role": "user", "content": "What did you conclude?"},
        ],
    )
    assert asked(teorema, newest(teorema))["follow_up_of"] is None


@pytest.mark.parametrize(("api_key", "words"), [("", "No API key"), ("tk_not-a-token", "The API key is not valid")])
def test_a_missing_or_wrong_key_is_refused_in_words(teorema, api_key, words):
    refused = openai.OpenAI(base_url=f"{teorema.url}/v1", api_key=api_key or "-", max_retries=0)
    if not api_key:
        refused = refused.with_options(default_headers={"Authorization": ""})
    with pytest.raises(openai.AuthenticationError, match=words):
        refused.models.list()


@pytest.mark.parametrize(
    ("body", "error", "words"),
    [
        ({"model": "teorema/nowhere"}, openai.NotFoundError, "The model 'teorema/nowhere' does not exist"),
        ({"messages": "hello"}, openai.BadRequestError, "'messages': Must be a list of messages, not a string"),
        ({"messages": [{"role": "user", "content": 42}]}, openai.BadRequestError, "must be a string or a list"),
        (
            {
                "messages": [
                    {"role": "user", "content": [{"type": "image_url", "image_url": {"url": "https://x/a.png"}}]}
                ]
            },
            openai.BadRequestError,
            "a link is never fetched",
        ),
        ({"messages": [{"role": "assistant", "content": "hi"}]}, openai.BadRequestError, "must be the user's question"),
        ({"messages": [{"role": "user", "content": ""}]}, openai.BadRequestError, "text"),
        ({"stream": "yes"}, openai.BadRequestError, "'stream': Must be true or false"),
        ({"n": 3}, openai.BadRequestError, "one answer per question"),
        ({"extra_body": {"teorema": {"deadline": "soon"}}}, openai.BadRequestError, "'teorema.deadline'"),
        ({"extra_body": {"teorema": {"deadline": 5}}}, openai.BadRequestError, "deadline"),
        ({"extra_body": {"reasoning_format": "xml"}}, openai.BadRequestError, "must be one of reasoning_content"),
        # Issue 41: each of these was a 500 with a traceback, or Django's HTML page.
        (
            {"messages": [{"role": "user", "content": "x" * 3_000_000}]},
            openai.BadRequestError,
            "The request is too large: at most",
        ),
    ],
)
def test_wrong_input_gets_an_openai_shaped_error_in_words_and_asks_nothing(teorema, fake_provider, body, error, words):
    before = newest(teorema)
    arguments = {"model": "teorema/house", "messages": [{"role": "user", "content": QUESTION}]} | body
    with pytest.raises(error, match=words) as raised:
        client(teorema).chat.completions.create(**arguments)
    assert raised.value.body["message"]
    assert raised.value.body["type"]
    assert newest(teorema) == before
    assert not fake_provider.requests


def test_a_client_that_goes_away_mid_debate_loses_nothing(teorema, fake_provider):
    for family in ("alpha", "beta", "gamma"):
        fake_provider.script(f"model-{family}", Script(answer=voice_answer(family), tokens_per_second=30))
    fake_provider.script("model-moderator", Script(answer=SYNTHESIS, tokens_per_second=200))
    stream = client(teorema).chat.completions.create(
        model="teorema/house", messages=[{"role": "user", "content": QUESTION}], stream=True
    )
    for chunk in stream:
        if chunk.choices and "ALPHA" in str((chunk.choices[0].delta.model_extra or {}).get("reasoning_content")):
            break
    stream.close()  # the connection goes mid-debate
    question = newest(teorema)
    deadline = time.monotonic() + 60
    while (stored := asked(teorema, question))["status"] not in {"done", "failed"} and time.monotonic() < deadline:
        time.sleep(0.2)
    assert stored["status"] == "done"
    assert stored["synthesis"]["text"].strip() == SYNTHESIS.strip()
    assert all(c["status"] == "done" for r in stored["rounds"] for c in r["contributions"])


def test_a_failed_debate_is_an_error_that_points_to_its_kept_work(teorema, fake_provider):
    for model in ("model-alpha", "model-beta", "model-gamma", "model-moderator"):  # a stand-in would step in
        fake_provider.script(model, *[Script(status=500, error="provider down")] * 6)
    with pytest.raises(openai.APIStatusError, match="The debate failed") as raised:
        client(teorema).chat.completions.create(model="teorema/house", messages=[{"role": "user", "content": QUESTION}])
    question = newest(teorema)
    assert f"/q/{question}/" in raised.value.message
    assert raised.value.body["code"] == "debate_failed"
    assert raised.value.status_code == 424
    assert raised.value.response.headers["x-should-retry"] == "false"


def test_an_assistant_turn_with_a_marker_too_long_to_be_ours_is_only_context(teorema, scripted):
    """Issue 41: "[Teorema question <5000 digits>]" was read as a question number: a 500."""
    marker = f"[Teorema question {'9' * 5000}]"
    client(teorema).chat.completions.create(
        model="teorema/house",
        messages=[{"role": "assistant", "content": marker}, {"role": "user", "content": QUESTION}],
    )
    question = asked(teorema, newest(teorema))
    assert question["follow_up_of"] is None
    assert marker[:40] in question["context"]


@pytest.mark.parametrize("path", ["/v1/nowhere", "/v1/chat"])
def test_an_unknown_path_under_v1_is_an_openai_shaped_404(teorema, path):
    answer = httpx.get(f"{teorema.url}{path}", headers={"Authorization": f"Bearer {teorema.tokens['alice']}"})
    assert answer.status_code == 404
    assert answer.json()["error"]["type"] == "invalid_request_error"


def test_a_lone_surrogate_in_the_model_is_refused_in_words(teorema, fake_provider):
    """Issue 41: a 500 and a traceback. The ``openai`` package cannot even encode one: raw JSON it is."""
    body = '{"model": "teorema/\\ud800", "messages": [{"role": "user", "content": "Shard?"}]}'
    headers = {"Authorization": f"Bearer {teorema.tokens['alice']}", "Content-Type": "application/json"}
    answer = httpx.post(f"{teorema.url}/v1/chat/completions", content=body, headers=headers)
    assert answer.status_code == 400
    error = answer.json()["error"]
    assert error["message"].startswith("'model': It holds a lone UTF-16 surrogate (\\ud800)")
    assert error["param"] == "model"
    assert not fake_provider.requests
