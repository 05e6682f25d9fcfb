"""The fake's Responses API read by the official ``openai`` package: its stream helper
(``client.responses.stream`` and ``get_final_response``), ``client.responses.create`` streamed and
not, and every raw event and response object validated against the package's own types, so the
fake our provider is tested on cannot drift from the real API."""

import base64
import json

import httpx
import openai
import pydantic
import pytest
from openai.types.responses import Response, ResponseStreamEvent

from tests.fakes.provider_server import Script
from tests.fakes.responses import MIN_OUTPUT_TOKENS, REASONING_TOKENS, SUMMARY
from tests.fakes.wire import Cite

BOILING_LINK = "([example.org](https://example.org/boiling?utm_source=openai))"
EVEREST_LINK = "([example.org](https://example.org/everest?utm_source=openai))"
# As OpenAI's search models write it: a Markdown link after what each page supports.
ANSWER = f"Water boils at 100 °C at sea level {BOILING_LINK}, and near 70 °C on Everest {EVEREST_LINK}."
BOILING = Cite("https://example.org/boiling", "Boiling point", supports="Water boils at 100 °C at sea level")
EVEREST = Cite("https://example.org/everest", "Everest", supports="near 70 °C on Everest")
UNUSED = Cite("https://example.org/unused", "Looked up, never cited")
EVENTS = pydantic.TypeAdapter(ResponseStreamEvent)
PNG = base64.b64encode(b"\x89PNG\r\n\x1a\nfake").decode()
PDF = base64.b64encode(b"%PDF-1.4 fake").decode()


@pytest.fixture
def client(fake_provider) -> openai.OpenAI:
    return openai.OpenAI(base_url=fake_provider.base_url("responses"), api_key="sk-test", max_retries=0)


def raw_events(fake_provider, **body) -> list[dict]:
    """The stream as sent, each event validated by the package's types (no model is built unchecked)."""
    url = f"{fake_provider.base_url('responses')}/responses"
    with httpx.stream("POST", url, json=body | {"stream": True}, headers={"Authorization": "Bearer sk-test"}) as sent:
        lines = [line for line in sent.iter_lines() if line]
    names, found = lines[0::2], [json.loads(line.removeprefix("data: ")) for line in lines[1::2]]
    for name, data in zip(names, found, strict=True):
        assert name == f"event: {data['type']}"
        EVENTS.validate_python(data)
    return found


def test_a_streamed_answer_is_read_by_the_stream_helper_to_its_final_response(fake_provider, client):
    fake_provider.script("gpt-4.1", Script(answer=ANSWER, usage=(30, 12)))
    with client.responses.stream(model="gpt-4.1", instructions="Answer briefly.", input="Where does water boil?") as s:
        events = list(s)
        final = s.get_final_response()
    kinds = [e.type for e in events]
    assert kinds[:5] == [
        "response.created",
        "response.in_progress",
        "response.output_item.added",
        "response.content_part.added",
        "response.output_text.delta",
    ]
    assert kinds[-4:] == [
        "response.output_text.done",
        "response.content_part.done",
        "response.output_item.done",
        "response.completed",
    ]
    assert [e.sequence_number for e in events] == list(range(len(events)))
    assert "".join(e.delta for e in events if e.type == "response.output_text.delta") == ANSWER
    assert events[-5].snapshot == ANSWER  # the helper's own accumulation of the deltas
    assert final.output_text == ANSWER
    assert final.status == "completed"
    assert (final.usage.input_tokens, final.usage.output_tokens, final.usage.total_tokens) == (30, 12, 42)
    assert final.instructions == "Answer briefly."
    (request,) = fake_provider.requests
    assert (request.system, request.prompt, request.stream) == ("Answer briefly.", "Where does water boil?", True)


def test_every_raw_event_is_one_of_the_packages_types_in_order(fake_provider):
    fake_provider.script("gpt-4.1", ANSWER)
    events = raw_events(fake_provider, model="gpt-4.1", input="Where does water boil?")
    assert [e["sequence_number"] for e in events] == list(range(len(events)))
    (message,) = {e["item_id"] for e in events if "item_id" in e}
    assert all(e["response"]["id"] == events[0]["response"]["id"] for e in events if "response" in e)
    assert events[-1]["response"]["output"][0]["id"] == message


def test_an_answer_not_streamed_is_one_response_object(fake_provider, client):
    fake_provider.script("gpt-4.1", Script(answer=ANSWER, usage=(30, 12)))
    reply = client.responses.create(model="gpt-4.1", input="Where does water boil?")
    assert reply.output_text == ANSWER
    assert reply.usage.output_tokens == 12
    sent = httpx.post(f"{fake_provider.base_url('responses')}/responses", json={"model": "gpt-4.1", "input": "Hi"})
    Response.model_validate(sent.json())  # strictly, every field the package requires
    assert fake_provider.requests[0].stream is False


def test_web_search_citations_annotate_the_words_they_support_and_the_search_lists_its_pages(fake_provider, client):
    fake_provider.script("gpt-4.1", Script(answer=ANSWER, sources=(BOILING, EVEREST, UNUSED)))
    tools = [{"type": "web_search"}]
    with client.responses.stream(
        model="gpt-4.1", input="Where does water boil?", tools=tools, include=["web_search_call.action.sources"]
    ) as s:
        events = list(s)
        final = s.get_final_response()
    kinds = [e.type for e in events]
    searching = ["in_progress", "searching", "completed"]
    assert [k for k in kinds if k.startswith("response.web_search_call.")] == [
        f"response.web_search_call.{k}" for k in searching
    ]
    call, message = final.output
    assert call.type == "web_search_call"
    assert call.action.query == "Where does water boil?"
    assert [source.url for source in call.action.sources] == [BOILING.url, EVEREST.url, UNUSED.url]
    annotations = message.content[0].annotations
    linked = [f"{c.url}?utm_source=openai" for c in (BOILING, EVEREST)]  # the address as the link writes it
    assert [(a.url, a.title) for a in annotations] == list(zip(linked, ("Boiling point", "Everest"), strict=True))
    assert [ANSWER[a.start_index : a.end_index] for a in annotations] == [BOILING_LINK, EVEREST_LINK]  # the links
    added = [e for e in events if e.type == "response.output_text.annotation.added"]
    assert [(e.annotation_index, e.annotation.url) for e in added] == [(0, linked[0]), (1, linked[1])]
    streamed = "".join(e.delta for e in events[: events.index(added[0])] if e.type == "response.output_text.delta")
    assert BOILING_LINK in streamed  # a citation comes once its link has streamed
    raw_events(fake_provider, model="gpt-4.1", input="Where?", tools=tools, include=["web_search_call.action.sources"])


def test_without_the_include_a_search_lists_no_pages_and_without_the_tool_there_is_no_search(fake_provider, client):
    fake_provider.script("gpt-4.1", Script(answer=ANSWER, sources=(BOILING,)))
    searched = client.responses.create(model="gpt-4.1", input="Where?", tools=[{"type": "web_search"}])
    assert searched.output[0].action.sources is None
    plain = client.responses.create(model="gpt-4.1", input="Where?")
    (message,) = plain.output
    assert message.content[0].annotations == []


def test_an_image_and_a_pdf_are_sent_as_input_image_and_input_file_parts(fake_provider, client):
    image = {"type": "input_image", "image_url": f"data:image/png;base64,{PNG}", "detail": "auto"}
    document = {"type": "input_file", "filename": "report.pdf", "file_data": f"data:application/pdf;base64,{PDF}"}
    text = {"type": "input_text", "text": "What do these show?"}
    reply = client.responses.create(model="gpt-4.1", input=[{"role": "user", "content": [image, document, text]}])
    assert reply.output_text
    (request,) = fake_provider.requests
    assert request.files == [image, document]
    assert request.prompt == "What do these show?"


def test_a_reasoning_model_reasons_first_and_streams_its_summary_where_one_is_asked(fake_provider, client):
    fake_provider.script("o4-mini", Script(answer=ANSWER, usage=(30, 12)))
    with client.responses.stream(model="o4-mini", input="Where?", reasoning={"summary": "auto"}) as s:
        events = list(s)
        final = s.get_final_response()
    summary = "".join(e.delta for e in events if e.type == "response.reasoning_summary_text.delta")
    assert summary == SUMMARY
    reasoning, message = final.output
    assert (reasoning.type, message.type) == ("reasoning", "message")
    assert reasoning.summary[0].text == SUMMARY
    assert final.output_text == ANSWER  # the summary is no part of the answer
    assert final.usage.output_tokens_details.reasoning_tokens == REASONING_TOKENS
    assert final.usage.output_tokens == 12 + REASONING_TOKENS
    unasked = client.responses.create(model="o4-mini", input="Where?")
    assert unasked.output[0].summary == []
    raw_events(fake_provider, model="o4-mini", input="Where?", reasoning={"summary": "auto"})


def test_a_structured_reply_is_parsed_into_the_schema_asked(fake_provider, client):
    class Vote(pydantic.BaseModel):
        decision: str
        confidence: float

    fake_provider.script("gpt-4.1", '{"decision": "replicas", "confidence": 0.8}')
    reply = client.responses.parse(model="gpt-4.1", input="Vote, as JSON.", text_format=Vote)
    assert reply.output_parsed == Vote(decision="replicas", confidence=0.8)
    (request,) = fake_provider.requests
    assert request.json_output is True
    assert request.schema["required"] == ["decision", "confidence"]


def test_a_cut_off_answer_ends_incomplete_at_max_output_tokens(fake_provider, client):
    fake_provider.script("gpt-4.1", Script(answer=ANSWER, finish="length"))
    with client.responses.stream(model="gpt-4.1", input="Where?", max_output_tokens=16) as s:
        events = list(s)
        with pytest.raises(RuntimeError, match=r"response\.completed"):
            s.get_final_response()
    assert events[-1].type == "response.incomplete"
    assert events[-1].response.incomplete_details.reason == "max_output_tokens"
    assert events[-1].response.output[0].status == "incomplete"
    whole = client.responses.create(model="gpt-4.1", input="Where?")
    assert (whole.status, whole.incomplete_details.reason) == ("incomplete", "max_output_tokens")


@pytest.mark.parametrize(
    ("status", "error"),
    [(401, openai.AuthenticationError), (429, openai.RateLimitError), (500, openai.InternalServerError)],
)
def test_http_errors_carry_the_apis_error_object(fake_provider, client, status, error):
    fake_provider.script("gpt-4.1", Script(status=status, error="fake failure"))
    with pytest.raises(error) as raised:
        client.responses.create(model="gpt-4.1", input="Where?")
    assert raised.value.status_code == status
    assert raised.value.body["message"] == "fake failure"


@pytest.mark.parametrize(
    ("body", "said"),
    [
        ({"model": "gpt-4.1", "max_output_tokens": 1}, f"Expected a value >= {MIN_OUTPUT_TOKENS}, but got 1"),
        ({"model": "o3", "temperature": 0.2}, "'temperature' is not supported with this model"),
    ],
)
def test_a_request_the_real_api_refuses_is_refused_in_its_words(fake_provider, client, body, said):
    with pytest.raises(openai.BadRequestError, match=said):
        client.responses.create(input="Where?", **body)


def test_a_generation_that_fails_mid_stream_ends_with_response_failed(fake_provider, client):
    fake_provider.script("gpt-4.1", Script(fault="error_event", status=529, after_chunks=2, error="Overloaded"))
    with client.responses.stream(model="gpt-4.1", input="Where?") as s:
        events = list(s)
        with pytest.raises(RuntimeError, match=r"response\.completed"):
            s.get_final_response()
    failed = events[-1]
    assert failed.type == "response.failed"
    assert (failed.response.error.code, failed.response.error.message) == ("server_is_overloaded", "Overloaded")
    assert failed.response.id == events[0].response.id


def test_a_request_error_mid_stream_is_an_error_event(fake_provider, client):
    fake_provider.script("gpt-4.1", Script(fault="error_event", status=400, after_chunks=1, error="Invalid image"))
    with client.responses.stream(model="gpt-4.1", input="Where?") as s:
        events = list(s)
    assert (events[-1].type, events[-1].code, events[-1].message) == ("error", "invalid_prompt", "Invalid image")


def test_the_models_list_and_a_coding_agents_request_get_a_tool_less_answer(fake_provider, client):
    assert [m.id for m in client.models.list()] == fake_provider.models
    fake_provider.script("gpt-5-codex", "No tool is needed: the answer is 42.")
    shell = {"type": "function", "name": "shell", "parameters": {"type": "object", "properties": {}}, "strict": False}
    agent = {
        "model": "gpt-5-codex",
        "instructions": "You are a coding agent.",
        "input": [
            {
                "type": "message",
                "role": "developer",
                "content": [{"type": "input_text", "text": "Sandbox: read-only."}],
            },
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "What is 6 x 7?"}]},
        ],
        "tools": [shell],
        "tool_choice": "auto",
        "parallel_tool_calls": False,
        "reasoning": {"effort": "medium", "summary": "auto"},
        "store": False,
        "include": ["reasoning.encrypted_content"],
    }
    with client.responses.stream(**agent) as s:
        final = s.get_final_response()
    assert [item.type for item in final.output] == ["reasoning", "message"]
    assert final.output_text == "No tool is needed: the answer is 42."
    assert final.tools[0].name == "shell"
    (request,) = fake_provider.requests
    assert request.system == "You are a coding agent.\n\nSandbox: read-only."
    assert request.messages == [("user", "What is 6 x 7?")]
