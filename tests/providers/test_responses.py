"""The Responses API wire (``debates/providers/responses.py``): what it sends and how it reads the
stream, on real loopback sockets against the fake (itself checked by the ``openai`` package in
test_responses_fake.py). What every wire shares (faults, retries, usage, the key) is in the tests
parametrized over ``WIRES``."""

import json
from decimal import Decimal

import httpx
import pytest

from debates.providers import catalog, responses
from debates.providers.base import (
    THINKING_ALLOWANCE,
    Chunk,
    Cited,
    Fault,
    Message,
    Part,
    ProviderError,
    SearchTool,
    Structure,
    Voice,
)
from tests.fakes.provider_server import Script
from tests.fakes.responses import REASONING_TOKENS, RESPONSES, SUMMARY
from tests.fakes.wire import Cite
from tests.providers.helpers import QUESTION, collect, completion, failure, retries

ANSWER = (
    "Water boils at 100 °C at sea level ([example.org](https://example.org/boiling?utm_source=openai)). "
    "It boils lower on mountains, about 70 °C on Everest "
    "([example.org](https://example.org/everest?utm_source=openai)). So: it depends."
)
BOILING = Cite("https://example.org/boiling", "Boiling point", supports="Water boils at 100 °C at sea level")
EVEREST = Cite("https://example.org/everest", "Everest", supports="It boils lower on mountains, about 70 °C on Everest")
UNUSED = Cite("https://example.org/unused", "Looked up, never cited")
CITES = (BOILING, EVEREST, UNUSED)


@pytest.fixture
def searching(fake_provider):
    """A voice on OpenAI's Responses API that may search, its answer citing two of three pages."""
    fake_provider.script("gpt-4.1", Script(answer=ANSWER, sources=CITES))
    endpoint = fake_provider.endpoint("responses", search=SearchTool.RESPONSES)
    return Voice("responses", "gpt-4.1", endpoint, search=True, price_search=Decimal("10"))


def supported(text: str, start: int | None, end: int | None) -> str:
    assert start is not None
    assert end is not None
    return text[start:end]


async def test_the_system_prompt_travels_as_instructions_and_nothing_is_stored(fake_provider):
    conversation = [*QUESTION, Message("assistant", "42"), Message("user", "Sure?")]
    await collect(
        fake_provider.voice("responses", "gpt-4.1", api_key="sk-test", temperature=0.2, max_tokens=99), conversation
    )
    (request,) = fake_provider.requests
    assert request.path == "/v1/responses"
    assert request.headers["authorization"] == "Bearer sk-test"
    assert request.body == {
        "model": "gpt-4.1",
        "input": [
            {"role": "user", "content": "What is six times seven?"},
            {"role": "assistant", "content": "42"},
            {"role": "user", "content": "Sure?"},
        ],
        "max_output_tokens": 99,
        "stream": True,
        "store": False,
        "instructions": "Answer in one line.",
        "temperature": 0.2,
    }


@pytest.mark.parametrize(
    "model", ["o3-pro", "gpt-5-codex", "gpt-5.2-pro", "codex-mini-latest", "o4-mini-deep-research"]
)
async def test_reasoning_models_get_room_to_think_and_no_temperature(fake_provider, model):
    fake_provider.script(model, Script(answer="Forty-two.", usage=(40, 3)))
    done = completion(await collect(fake_provider.voice("responses", model, temperature=0.2, max_tokens=99)))
    (request,) = fake_provider.requests
    assert request.body["max_output_tokens"] == 99 + THINKING_ALLOWANCE
    assert "temperature" not in request.body  # the real API refuses one (the fake does too)
    assert done.text == "Forty-two."  # the reasoning item before the message is no part of it
    assert (done.tokens_in, done.tokens_out) == (40, 3 + REASONING_TOKENS)  # reasoning is billed as output


async def test_a_reasoning_models_summary_of_its_thinking_is_read_apart_from_its_answer(fake_provider):
    fake_provider.script("o4-mini", Script(answer="Forty-two.", usage=(40, 3)))
    done = completion(await collect(fake_provider.voice("responses", "o4-mini")))
    assert fake_provider.requests[0].body["reasoning"] == {"summary": "auto"}
    assert done.text == "Forty-two."
    assert done.thought == SUMMARY


async def test_an_endpoint_that_refuses_summaries_is_asked_again_at_once_without_and_never_again(
    fake_provider, monkeypatch
):
    """OpenAI gives a reasoning summary only to a verified organisation, and refuses the request (a 400)
    otherwise: the answer is asked for again without one, and this endpoint is not asked for one again."""
    monkeypatch.setattr(RESPONSES, "verified", False)
    monkeypatch.setattr(responses, "UNSUMMARISED", set())
    fake_provider.script("o4-mini", Script(answer="Forty-two.", usage=(40, 3)))
    voice = fake_provider.voice("responses", "o4-mini")
    first = completion(await collect(voice))
    second = completion(await collect(voice))
    assert (first.text, first.thought, second.text) == ("Forty-two.", "", "Forty-two.")
    assert [("reasoning" in r.body) for r in fake_provider.requests] == [True, False, False]
    assert len(first.attempts) == 1  # the refusal is no failed try of the voice's


async def test_a_refusal_that_is_no_summarys_is_a_failure_as_before(fake_provider, monkeypatch):
    monkeypatch.setattr(responses, "UNSUMMARISED", set())
    fake_provider.script("o4-mini", Script(status=400, error="Invalid 'input': empty."))
    error, _ = await failure(fake_provider.voice("responses", "o4-mini"))
    assert error.fault == Fault.BAD_REQUEST
    assert len(fake_provider.requests) == 1
    assert not responses.UNSUMMARISED


async def test_a_ping_asks_for_the_least_the_api_takes(fake_provider):
    voice = fake_provider.voice("responses", "gpt-4.1", max_tokens=1)
    done = completion(await collect(voice))
    assert fake_provider.requests[0].body["max_output_tokens"] == responses.MIN_OUTPUT_TOKENS
    assert done.text


async def test_an_image_and_a_pdf_go_as_input_image_and_input_file_before_the_text(fake_provider):
    png, pdf = (
        Part("image", "chart.png", "image/png", b"\x89PNG"),
        Part("pdf", "report.pdf", "application/pdf", b"%PDF"),
    )
    await collect(fake_provider.voice("responses", "gpt-4.1"), [Message("user", "Compare them.", (png, pdf))])
    (request,) = fake_provider.requests
    assert request.files == [
        {"type": "input_image", "image_url": "data:image/png;base64,iVBORw==", "detail": "auto"},
        {"type": "input_file", "filename": "report.pdf", "file_data": "data:application/pdf;base64,JVBERg=="},
    ]
    assert request.body["input"][0]["content"][-1] == {"type": "input_text", "text": "Compare them."}
    assert request.prompt == "Compare them."


async def test_a_structure_is_asked_as_a_strict_json_schema_and_json_as_a_json_object(fake_provider):
    schema = {"type": "object", "properties": {"same": {"type": "boolean"}}, "required": ["same"]}
    fake_provider.script("gpt-4.1", '{"same": true}')
    structured = fake_provider.voice("responses", "gpt-4.1", structure=Structure("grouping", json.dumps(schema)))
    assert completion(await collect(structured)).text == '{"same": true}'
    await collect(fake_provider.voice("responses", "gpt-4.1", json_output=True))
    first, second = fake_provider.requests
    assert first.body["text"] == {
        "format": {"type": "json_schema", "name": "grouping", "schema": schema, "strict": True}
    }
    assert (first.schema, second.body["text"]) == (schema, {"format": {"type": "json_object"}})
    assert first.json_output
    assert second.json_output


async def test_a_voice_that_may_search_gets_the_web_search_tool_and_its_pages(fake_provider, searching):
    await collect(searching)
    (request,) = fake_provider.requests
    assert request.body["tools"] == [{"type": "web_search"}]
    assert request.body["include"] == ["web_search_call.action.sources"]
    await collect(fake_provider.voice("responses", "gpt-4.1"))
    assert not {"tools", "include"} & set(fake_provider.requests[1].body)


async def test_url_citations_stream_on_the_words_they_support_and_the_search_is_counted(searching):
    events = await collect(searching)
    done = completion(events)
    assert done.text == ANSWER
    cited = [s for s in done.sources if s.cited]
    written = [f"{c.url}?utm_source=openai" for c in (BOILING, EVEREST)]  # as the links give them
    assert [(s.url, s.title) for s in cited] == list(zip(written, (BOILING.title, EVEREST.title), strict=True))
    assert [supported(done.text, s.start, s.end) for s in cited] == [BOILING.supports, EVEREST.supports]
    assert [s.url for s in done.sources if not s.cited] == [c.url for c in CITES]  # what the search found
    assert done.searches == 1
    assert done.cost == Decimal("0.01")  # tokens at no price, one search at $10 a 1,000
    streamed = [e for e in events if isinstance(e, Cited)]
    assert len(streamed) == 2  # the search's pages, then the citations once the answer is whole
    last = events.index(streamed[1])
    assert "".join(e.text for e in events[:last] if isinstance(e, Chunk)) == ANSWER


async def test_a_whole_response_reads_as_the_streamed_one(fake_provider, searching):
    streamed = completion(await collect(searching))
    url = f"{fake_provider.base_url('responses')}/responses"
    async with httpx.AsyncClient() as client:
        reply = (await client.post(url, json={**fake_provider.requests[0].body, "stream": False})).json()
    reading = responses.Reading("whole")
    reading.delta((1, 0), reply["output"][1]["content"][0]["text"])  # the message's one part begins the answer
    found = [item for index, given in enumerate(reply["output"]) for item in reading.item_done(index, given)]
    found += reading.read("response.completed", {"response": reply})
    assert tuple(s for c in found if isinstance(c, Cited) for s in c.sources) == streamed.sources


async def test_a_cut_off_answer_ends_as_every_wires_length(fake_provider):
    fake_provider.script("gpt-4.1", Script(answer="The answer is cut", finish="length"))
    done = completion(await collect(fake_provider.voice("responses", "gpt-4.1")))
    assert (done.text, done.finish_reason) == ("The answer is cut", "length")


async def test_a_filtered_response_with_no_text_is_blocked_and_not_retried(fake_provider):
    fake_provider.script("gpt-4.1", Script(fault="empty", finish="content_filter"))
    error, _ = await failure(fake_provider.voice("responses", "gpt-4.1", max_retries=2))
    assert (error.fault, error.message) == (Fault.BLOCKED, "Fake responses withheld the answer (content_filter)")
    assert len(fake_provider.requests) == 1


@pytest.mark.parametrize(
    ("status", "fault", "words", "tries"),
    [
        (529, Fault.OVERLOADED, "Fake responses is overloaded (503): Overloaded", 2),
        (429, Fault.RATE_LIMITED, "Fake responses is rate limiting us (429): Overloaded", 2),
        (500, Fault.SERVER, "Fake responses had a server error (500): Overloaded", 2),
        (400, Fault.BAD_REQUEST, "Fake responses refused the request (400): Overloaded", 1),
    ],
)
async def test_a_failure_mid_stream_is_named_by_its_code_and_retried_when_transient(
    fake_provider, status, fault, words, tries
):
    fake_provider.script("gpt-4.1", Script(fault="error_event", status=status, after_chunks=2))
    error, events = await failure(fake_provider.voice("responses", "gpt-4.1", max_retries=1))
    assert (error.fault, error.message) == (fault, words)
    assert len(fake_provider.requests) == tries
    assert [r.discard for r in retries(events)] == [True] * (tries - 1)  # it had streamed two words


@pytest.mark.parametrize(
    ("event", "words"),
    [
        (
            {"type": "error", "code": "rate_limit_exceeded", "message": "Slow down."},
            "rate limiting us (429): Slow down.",
        ),
        (
            {
                "type": "error",
                "error": {"type": "service_unavailable_error", "code": "server_is_overloaded", "message": "Busy."},
            },
            "is overloaded (503): Busy.",
        ),
        ({"type": "error", "code": None, "message": "Something broke."}, "had a server error (500): Something broke."),
        (
            {"type": "response.failed", "response": {"error": {"code": "invalid_image", "message": "Bad image."}}},
            "(400): Bad image.",
        ),
    ],
)
def test_each_shape_of_error_event_is_read_with_its_status(event, words):
    with pytest.raises(ProviderError) as raised:
        responses.Reading("OpenAI").read(event["type"], event)
    assert words in str(raised.value)


@pytest.mark.parametrize(
    ("model", "only"),
    [
        ("o3-pro", True),
        ("o1-pro-2025-03-19", True),
        ("gpt-5.2-pro", True),
        ("gpt-5-codex", True),
        ("gpt-5.1-codex-max", True),
        ("codex-mini-latest", True),
        ("o4-mini-deep-research", True),
        ("computer-use-preview", True),
        ("gpt-5", False),
        ("o3", False),
        ("gpt-4.1", False),
        ("gpt-5-chat-latest", False),
        ("openai/o3-pro", False),  # a router's id: served its own way
        ("codestral-latest", False),
    ],
)
def test_the_catalog_names_the_models_only_the_responses_api_serves_and_their_family(model, only):
    assert catalog.responses_only(model) is only
    if only:
        assert catalog.family(model) == "gpt"
