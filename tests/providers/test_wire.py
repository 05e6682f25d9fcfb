"""What we send each provider and how we read its stream: checked on real loopback sockets."""

import asyncio
import json
import threading
from decimal import Decimal

import pytest

from debates.providers.base import THINKING_ALLOWANCE, Chunk, Completion, Fault, Message, Structure
from tests.fakes.provider_server import Script
from tests.providers.helpers import QUESTION, WIRES, collect, completion, failure, text_of


@pytest.mark.parametrize("wire", WIRES)
async def test_answer_streams_in_order_and_ends_with_one_completion(fake_provider, wire):
    fake_provider.script("m", "Six times seven is forty-two, as always.")
    events = await collect(fake_provider.voice(wire, "m"))
    chunks = [e for e in events if isinstance(e, Chunk)]
    assert len(chunks) == 7
    assert text_of(events) == "Six times seven is forty-two, as always."
    done = completion(events)
    assert done.text == text_of(events)
    assert done.finish_reason == "stop"
    assert [a.number for a in done.attempts] == [1]
    assert done.attempts[0].error == ""


async def test_openai_sends_bearer_key_model_and_streaming_options(fake_provider):
    await collect(fake_provider.voice("openai", "gpt-x", api_key="sk-test", temperature=0.2, max_tokens=99))
    (request,) = fake_provider.requests
    assert request.path == "/v1/chat/completions"
    assert request.headers["authorization"] == "Bearer sk-test"
    assert request.body == {
        "model": "gpt-x",
        "messages": [{"role": m.role, "content": m.content} for m in QUESTION],
        "temperature": 0.2,
        "max_tokens": 99,
        "stream": True,
        "stream_options": {"include_usage": True},
    }


@pytest.mark.parametrize("model", ["o3-mini", "gpt-5", "openai/o4-mini"])
async def test_openai_reasoning_models_get_max_completion_tokens_and_no_temperature(fake_provider, model):
    await collect(fake_provider.voice("openai", model, temperature=0.2, max_tokens=99))
    (request,) = fake_provider.requests
    assert request.body["max_completion_tokens"] == 99 + THINKING_ALLOWANCE  # 99 for the answer, the rest to think
    assert "max_tokens" not in request.body
    assert "temperature" not in request.body


async def test_openai_compatible_server_without_key_gets_no_authorization_header(fake_provider):
    await collect(fake_provider.voice("openai", api_key=""))
    assert "authorization" not in fake_provider.requests[0].headers


async def test_anthropic_sends_key_version_and_top_level_system(fake_provider):
    await collect(fake_provider.voice("anthropic", "claude-x", api_key="sk-ant-test", max_tokens=64))
    (request,) = fake_provider.requests
    assert request.path == "/v1/messages"
    assert request.headers["x-api-key"] == "sk-ant-test"
    assert request.headers["anthropic-version"] == "2023-06-01"
    assert "authorization" not in request.headers
    assert request.body["system"] == "Answer in one line."
    assert request.body["messages"] == [{"role": "user", "content": "What is six times seven?"}]
    assert request.body["max_tokens"] == 64
    assert request.body["stream"] is True


async def test_gemini_key_travels_in_a_header_never_in_the_url(fake_provider):
    conversation = [*QUESTION, Message("assistant", "42"), Message("user", "Sure?")]
    await collect(fake_provider.voice("gemini", "gemini-x", api_key="AIza-secret"), conversation)
    (request,) = fake_provider.requests
    assert request.path == "/v1beta/models/gemini-x:streamGenerateContent"
    assert request.query == "alt=sse"
    assert request.headers["x-goog-api-key"] == "AIza-secret"
    assert "AIza-secret" not in request.path + request.query
    assert request.body["systemInstruction"] == {"parts": [{"text": "Answer in one line."}]}
    assert [c["role"] for c in request.body["contents"]] == ["user", "model", "user"]
    assert request.body["generationConfig"] == {"temperature": 0.7, "maxOutputTokens": 1500}


@pytest.mark.parametrize("model", ["gemini-2.5-pro", "gemini-2.5-flash", "models/gemini-3-flash-preview"])
async def test_gemini_thinking_models_get_room_to_think_beyond_the_answers_budget(fake_provider, model):
    await collect(fake_provider.voice("gemini", model, max_tokens=800))
    (request,) = fake_provider.requests
    assert request.body["generationConfig"]["maxOutputTokens"] == 800 + THINKING_ALLOWANCE
    assert "thinkingConfig" not in request.body["generationConfig"]  # thinking is never switched on by us


@pytest.mark.parametrize("wire", WIRES)
async def test_usage_from_the_provider_prices_the_call(fake_provider, wire):
    fake_provider.script("m", Script(answer="forty-two", usage=(1200, 300)))
    voice = fake_provider.voice(wire, "m", price_in=Decimal("3"), price_out=Decimal("15"))
    done = completion(await collect(voice))
    assert (done.tokens_in, done.tokens_out, done.tokens_estimated) == (1200, 300, False)
    assert done.cost == Decimal("0.0081")  # 1200 * 3 / 1e6 + 300 * 15 / 1e6


@pytest.mark.parametrize("wire", WIRES)
async def test_missing_usage_is_estimated_and_marked(fake_provider, wire):
    fake_provider.script("m", Script(answer="x" * 400, usage=False))
    voice = fake_provider.voice(wire, "m", price_in=Decimal("1"), price_out=Decimal("2"))
    done = completion(await collect(voice))
    prompt_chars = sum(len(m.content) for m in QUESTION)
    assert done.tokens_estimated is True
    assert done.tokens_out == 100
    assert done.tokens_in == -(-prompt_chars // 4)
    assert done.cost == (done.tokens_in * 1 + 100 * 2) / Decimal(1_000_000)


@pytest.mark.parametrize("wire", WIRES)
async def test_prompt_derived_answers_see_the_system_prompt_and_the_question(fake_provider, wire):
    fake_provider.script("m", lambda req: f"{req.system} / {req.prompt} / #{req.number}")
    done = completion(await collect(fake_provider.voice(wire, "m")))
    assert done.text == "Answer in one line. / What is six times seven? / #1"


@pytest.mark.parametrize("wire", WIRES)
async def test_concurrent_calls_are_all_in_flight_at_once(fake_provider, wire):
    fake_provider.script("m", Script(answer="a b c", first_token_delay=0.2))
    results = await asyncio.gather(*(collect(fake_provider.voice(wire, "m")) for _ in range(5)))
    assert fake_provider.max_in_flight == 5
    assert all(isinstance(events[-1], Completion) for events in results)


async def test_a_held_answer_sends_no_word_until_it_is_let_go(fake_provider):
    let_go = threading.Event()  # set from this test's loop, read on the fake's thread
    fake_provider.script("m", Script(answer="a b c", hold=lambda: not let_go.is_set()))
    call = asyncio.create_task(collect(fake_provider.voice("openai", "m")))
    await asyncio.sleep(0.3)
    assert fake_provider.requests
    assert not call.done()
    let_go.set()
    assert text_of(await call) == "a b c"


@pytest.mark.parametrize("wire", WIRES)
async def test_an_answer_cut_off_by_the_token_limit_ends_as_length_on_every_wire(fake_provider, wire):
    fake_provider.script("m", Script(answer="The answer is cut off here", finish="length"))
    done = completion(await collect(fake_provider.voice(wire, "m")))
    assert done.text == "The answer is cut off here"
    assert done.finish_reason == "length"


@pytest.mark.parametrize(
    ("wire", "raw", "expected"),
    [
        ("openai", "model_length", "length"),  # Mistral's name for the context limit
        ("openai", "content_filter", "content_filter"),
        ("anthropic", "refusal", "refusal"),
        ("gemini", "OTHER", "other"),
    ],
)
async def test_other_finish_reasons_are_kept_in_lower_case(fake_provider, wire, raw, expected):
    fake_provider.script("m", Script(answer="Some text", finish=raw))
    assert completion(await collect(fake_provider.voice(wire, "m"))).finish_reason == expected


@pytest.mark.parametrize("wire", WIRES)
async def test_an_empty_answer_cut_off_by_the_limit_says_the_budget_went_on_thinking(fake_provider, wire):
    fake_provider.script("m", Script(fault="empty", finish="length"))
    error, _ = await failure(fake_provider.voice(wire, "m", max_retries=0, max_tokens=64))
    assert error.fault == Fault.EMPTY
    assert "limit of 64 tokens" in error.message


async def test_openai_json_output_asks_for_a_json_object(fake_provider):
    await collect(fake_provider.voice("openai", "m", json_output=True))
    (request,) = fake_provider.requests
    assert request.body["response_format"] == {"type": "json_object"}
    assert request.json_output


async def test_gemini_json_output_asks_for_application_json(fake_provider):
    await collect(fake_provider.voice("gemini", "m", json_output=True))
    (request,) = fake_provider.requests
    assert request.body["generationConfig"]["responseMimeType"] == "application/json"
    assert request.json_output


async def test_anthropic_has_no_json_mode_so_the_request_is_unchanged(fake_provider):
    await collect(fake_provider.voice("anthropic", "m", json_output=True))
    await collect(fake_provider.voice("anthropic", "m"))
    with_json, without = fake_provider.requests
    assert with_json.body == without.body


@pytest.mark.parametrize("wire", WIRES)
async def test_no_json_mode_is_asked_unless_the_voice_wants_it(fake_provider, wire):
    await collect(fake_provider.voice(wire, "m"))
    (request,) = fake_provider.requests
    assert not request.json_output
    assert "response_format" not in request.body


async def test_perplexity_which_refuses_json_object_is_not_sent_it(fake_provider):
    # The fake answers on any path ending in /chat/completions, so a base URL naming the host will do.
    base_url = f"{fake_provider.base_url('openai')}/api.perplexity.ai"
    await collect(fake_provider.voice("openai", "sonar", base_url=base_url, json_output=True))
    (request,) = fake_provider.requests
    assert "response_format" not in request.body


SCHEMA = Structure(
    "agreement",
    json.dumps(
        {
            "type": "object",
            "properties": {"groups": {"type": "array", "items": {"type": "string", "enum": ["A", "B"]}}},
            "required": ["groups"],
            "additionalProperties": False,
        }
    ),
)
REPLY = '{"groups": ["A"]}'


async def test_openai_asks_for_a_structure_as_a_strict_json_schema(fake_provider):
    fake_provider.script("m", REPLY)
    assert text_of(await collect(fake_provider.voice("openai", "m", structure=SCHEMA))) == REPLY
    (request,) = fake_provider.requests
    assert request.body["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "agreement", "strict": True, "schema": json.loads(SCHEMA.schema)},
    }


async def test_a_server_that_takes_no_json_schema_gets_a_json_object_and_the_prompt_carries_the_shape(
    fake_provider,
):
    base_url = f"{fake_provider.base_url('openai')}/api.deepseek.com"
    await collect(fake_provider.voice("openai", "deepseek-chat", base_url=base_url, structure=SCHEMA))
    (request,) = fake_provider.requests
    assert request.body["response_format"] == {"type": "json_object"}


async def test_perplexity_gets_the_structure_as_a_json_schema(fake_provider):
    base_url = f"{fake_provider.base_url('openai')}/api.perplexity.ai"
    await collect(fake_provider.voice("openai", "sonar", base_url=base_url, structure=SCHEMA))
    (request,) = fake_provider.requests
    assert request.body["response_format"]["type"] == "json_schema"


async def test_gemini_asks_for_a_structure_in_its_openapi_subset(fake_provider):
    await collect(fake_provider.voice("gemini", "m", structure=SCHEMA))
    (request,) = fake_provider.requests
    config = request.body["generationConfig"]
    assert config["responseMimeType"] == "application/json"
    assert config["responseSchema"] == {
        "type": "OBJECT",
        "properties": {"groups": {"type": "ARRAY", "items": {"type": "STRING", "enum": ["A", "B"]}}},
        "propertyOrdering": ["groups"],
        "required": ["groups"],
    }  # no additionalProperties: Gemini's subset has none


async def test_anthropic_asks_for_a_structure_as_the_one_tool_it_must_call_and_streams_its_input(fake_provider):
    fake_provider.script("m", REPLY)
    events = await collect(fake_provider.voice("anthropic", "m", structure=SCHEMA))
    (request,) = fake_provider.requests
    described = "Record your reply in exactly this structure."
    assert request.body["tools"] == [
        {"name": "agreement", "description": described, "input_schema": json.loads(SCHEMA.schema)}
    ]
    assert request.body["tool_choice"] == {"type": "tool", "name": "agreement"}
    assert [e.text for e in events if isinstance(e, Chunk)]  # input_json_delta arrives as text, in order
    done = completion(events)
    assert (done.text, done.finish_reason) == (REPLY, "stop")  # stop_reason tool_use ends it normally
