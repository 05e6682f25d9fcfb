"""The fake's chat completions, parsed by the official ``openai`` package: every event and reply
validates as the SDK's own types, its stream helper (``chat.completions.stream`` and
``get_final_completion``) and a whole reply read the same text, sources and usage as our client reads
from the same script, files go as both send them, and errors raise as they would from OpenAI."""

import json

import httpx
import openai
import pytest
from openai.types.chat import ChatCompletion, ChatCompletionChunk

from debates.providers import openai as wire
from debates.providers.base import Fault, SearchTool, Source, Voice
from tests.fakes.provider_server import FakeProviderServer, Script
from tests.providers.helpers import collect, completion, failure
from tests.providers.official import ASKED, CITES, IMAGE, LINKED, MARKED, PDF, PLAIN, USAGE, WITH_FILES

WEB = {"id": "web", "max_results": wire.WEB_RESULTS}
# (model, the endpoint's search tool, the answer, what the SDK's request adds to ask for search)
CASES = {
    "plain": ("gpt-4.1", SearchTool.NONE, PLAIN, {}),
    "openai search": ("gpt-4o-search-preview", SearchTool.OPENAI, LINKED, {"web_search_options": {}}),
    "openrouter web": ("openai/gpt-4.1", SearchTool.OPENROUTER, LINKED, {"extra_body": {"plugins": [WEB]}}),
    "perplexity": ("sonar", SearchTool.PERPLEXITY, MARKED, {}),
    "perplexity, no citations": ("sonar-pro", SearchTool.PERPLEXITY, MARKED, {}),
}


def client(fake: FakeProviderServer) -> openai.AsyncOpenAI:
    return openai.AsyncOpenAI(base_url=fake.base_url("openai"), api_key="sk-fake", max_retries=0)


def scripted(fake: FakeProviderServer, case: str) -> tuple[str, dict, Voice]:
    """The case's reply scripted, and what our client reads of it (asked as a voice that searches)."""
    model, tool, answer, asks = CASES[case]
    omit = ("citations",) if "no citations" in case else ()
    fake.script(model, Script(answer=answer, sources=CITES if tool else (), usage=USAGE, omit=omit))
    voice = Voice(case, model, fake.endpoint("openai", search=tool), search=bool(tool))
    assert all(wire.search_fields(voice).get(k) == v for k, v in (asks.get("extra_body") or asks).items())
    return model, asks, voice


def read(content: str, annotations: list, extra: dict) -> tuple[Source, ...]:
    """The sources our parsers read from what the SDK parsed: annotations, else Perplexity's fields."""
    if found := wire.url_citations(annotations, content):
        return tuple(found)
    if extra.get("citations") or extra.get("search_results"):
        return tuple(wire.perplexity_sources(extra.get("citations") or [], extra.get("search_results") or [], content))
    return ()


@pytest.mark.parametrize("case", CASES)
async def test_the_sdks_stream_helper_reads_what_our_client_reads(fake_provider, case):
    model, asks, voice = scripted(fake_provider, case)
    done = completion(await collect(voice))
    fields = {"stream_options": {"include_usage": True}, **asks}
    extra: dict = {}  # Perplexity's fields, beside the choices of each chunk (the accumulator keeps none)
    async with client(fake_provider).chat.completions.stream(model=model, messages=ASKED, **fields) as stream:
        async for event in stream:
            extra |= event.chunk.model_extra or {} if event.type == "chunk" else {}
        final = await stream.get_final_completion()
    (choice,) = final.choices
    annotations = [a.model_dump() for a in choice.message.annotations or ()]
    assert choice.message.content == done.text
    assert read(done.text, annotations, extra) == done.sources
    assert (final.usage.prompt_tokens, final.usage.completion_tokens) == (done.tokens_in, done.tokens_out) == USAGE
    assert choice.finish_reason == done.finish_reason == "stop"
    if CASES[case][1]:
        assert [s for s in done.sources if s.cited]  # a searching case cites, so the comparison compares something


@pytest.mark.parametrize("case", CASES)
async def test_a_whole_reply_reads_as_the_stream_our_client_read(fake_provider, case):
    model, asks, voice = scripted(fake_provider, case)
    done = completion(await collect(voice))
    reply = await client(fake_provider).chat.completions.create(model=model, messages=ASKED, **asks)
    message = reply.choices[0].message
    annotations = [a.model_dump() for a in message.annotations or ()]
    assert message.content == done.text
    assert read(message.content, annotations, reply.model_extra or {}) == done.sources
    assert (reply.usage.prompt_tokens, reply.usage.completion_tokens) == USAGE


@pytest.mark.parametrize("case", CASES)
async def test_every_event_and_reply_the_fake_sends_is_the_sdks_own_type(fake_provider, case):
    _model, _asks, voice = scripted(fake_provider, case)
    await collect(voice)
    (request,) = fake_provider.requests
    async with httpx.AsyncClient(base_url=fake_provider.url) as raw:
        streamed = (await raw.post(request.path, json=request.body)).text.split("\n\n")
        whole = (await raw.post(request.path, json=request.body | {"stream": False})).json()
    events = [e.removeprefix("data: ") for e in streamed if e.startswith("data: ")]
    assert events[-1] == "[DONE]"
    for event in events[:-1]:
        ChatCompletionChunk.model_validate(json.loads(event))
    ChatCompletion.model_validate(whole)


async def test_images_and_pdfs_go_as_the_sdk_sends_them_and_are_accepted(fake_provider):
    fake_provider.script("gpt-4.1", PLAIN)
    done = completion(await collect(fake_provider.voice("openai", "gpt-4.1"), WITH_FILES))
    ours = fake_provider.requests[-1].files
    parts = [wire.part(IMAGE), wire.part(PDF), {"type": "text", "text": WITH_FILES[1].content}]
    sent = [ASKED[0], {"role": "user", "content": parts}]
    reply = await client(fake_provider).chat.completions.create(model="gpt-4.1", messages=sent)
    assert reply.choices[0].message.content == done.text == PLAIN
    assert fake_provider.requests[-1].files == ours == [wire.part(IMAGE), wire.part(PDF)]
    assert [f["type"] for f in ours] == ["image_url", "file"]


async def test_an_http_error_raises_in_the_sdk_as_it_faults_our_call(fake_provider):
    fake_provider.script("gpt-4.1", Script(status=429, error="Slow down", retry_after="7"))
    with pytest.raises(openai.RateLimitError) as raised:
        await client(fake_provider).chat.completions.create(model="gpt-4.1", messages=ASKED)
    assert raised.value.status_code == 429
    assert raised.value.response.headers["retry-after"] == "7"
    assert "Slow down" in raised.value.message
    voice = fake_provider.voice("openai", "gpt-4.1", max_retries=0)
    error, _ = await failure(voice)
    assert (error.fault, error.status) == (Fault.RATE_LIMITED, 429)


async def test_an_error_event_mid_stream_raises_in_the_sdks_stream_as_in_ours(fake_provider):
    fake_provider.script("gpt-4.1", Script(answer=PLAIN, fault="error_event", status=500, error="The server broke"))
    with pytest.raises(openai.APIError, match="The server broke"):
        async with client(fake_provider).chat.completions.stream(model="gpt-4.1", messages=ASKED) as stream:
            await stream.get_final_completion()
    error, events = await failure(fake_provider.voice("openai", "gpt-4.1", max_retries=0))
    assert error.fault == Fault.SERVER
    assert events  # the words before the error streamed, then it failed
