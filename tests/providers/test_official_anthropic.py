"""The fake's Messages API, parsed by the official ``anthropic`` package: every event and message
validates as the SDK's own types, its stream helper (``messages.stream`` and ``get_final_message``)
and a whole message read the same text, sources and usage as our client reads from the same script
(a paused turn continued as the SDK's user would: its content sent back), files go as both send
them, and errors raise as they would from Anthropic."""

import json
from dataclasses import replace
from typing import Any

import anthropic
import httpx
import pytest
from anthropic.types import Message as SDKMessage
from anthropic.types import RawMessageStreamEvent
from pydantic import TypeAdapter

from debates.providers import anthropic as wire
from debates.providers.base import Fault, SearchTool, Source, Structure, Voice
from tests.fakes.provider_server import FakeProviderServer, Script
from tests.providers.helpers import collect, completion, failure
from tests.providers.official import CITES, IMAGE, PDF, PLAIN, QUESTION, SAID, USAGE, WITH_FILES

MODEL = "claude-sonnet-5"
SYSTEM, ASKED = QUESTION[0].content, [{"role": "user", "content": QUESTION[1].content}]
SEARCH = [wire.search_tool()]
PAUSED = "Let me look that up."
EVENT = TypeAdapter(RawMessageStreamEvent)


def client(fake: FakeProviderServer) -> anthropic.AsyncAnthropic:
    return anthropic.AsyncAnthropic(base_url=fake.base_url("anthropic"), api_key="sk-ant-fake", max_retries=0)


def voice(fake: FakeProviderServer, search: bool) -> Voice:
    endpoint = fake.endpoint("anthropic", search=SearchTool.ANTHROPIC, max_retries=0)
    return Voice("claude", MODEL, endpoint, search=search, max_tokens=300)


def read(messages: list[SDKMessage]) -> tuple[str, tuple[Source, ...]]:
    """The text and sources our parser reads from the blocks the SDK parsed (a paused turn's
    messages one after another), the text after a search a paragraph of its own."""
    text, sources, before = "", [], None
    for block in (b.model_dump(exclude_none=True) for m in messages for b in m.content):
        if block["type"] == "text" and text and before != "text":
            text += wire.BETWEEN_SEARCHES
        sources += wire.block_sources(block, len(text))
        text += block.get("text", "") if block["type"] == "text" else ""
        before = block["type"]
    return text, tuple(sources)


async def sdk_turn(fake: FakeProviderServer, stream: bool, **fields: Any) -> list[SDKMessage]:
    """A turn as the SDK's user asks it: a paused one sent back, its content as the assistant's, until it ends."""
    messages: list[Any] = list(ASKED)
    said = []
    for _ in range(wire.MAX_CONTINUATIONS + 1):
        asked = {"model": MODEL, "max_tokens": 300, "system": SYSTEM, "messages": messages, **fields}
        if stream:
            async with client(fake).messages.stream(**asked) as streaming:
                said.append(await streaming.get_final_message())
        else:
            said.append(await client(fake).messages.create(**asked))
        if said[-1].stop_reason != "pause_turn":
            return said
        messages = [*ASKED, {"role": "assistant", "content": [b for m in said for b in m.content]}]
    return said


CASES = {
    "plain": ((Script(PLAIN, usage=USAGE),), False),
    "search": ((Script(SAID, sources=CITES, usage=USAGE),), True),
    "paused search": (
        (Script(PAUSED, finish="pause_turn", usage=USAGE), Script(SAID, sources=CITES, usage=USAGE)),
        True,
    ),
}


@pytest.mark.parametrize("stream", [True, False], ids=["stream helper", "whole message"])
@pytest.mark.parametrize("case", CASES)
async def test_the_sdk_reads_what_our_client_reads(fake_provider, case, stream):
    steps, search = CASES[case]
    fake_provider.script(MODEL, *steps)
    done = completion(await collect(voice(fake_provider, search)))
    fake_provider.reset()  # the SDK's turn starts from the first step again
    fake_provider.script(MODEL, *steps)
    said = await sdk_turn(fake_provider, stream, **({"tools": SEARCH} if search else {}))
    assert read(said) == (done.text, done.sources)
    assert sum(m.usage.input_tokens for m in said) == done.tokens_in
    assert sum(m.usage.output_tokens for m in said) == done.tokens_out
    searched = [m.usage.server_tool_use.web_search_requests for m in said if m.usage.server_tool_use]
    assert sum(searched) == done.searches
    assert said[-1].stop_reason == "end_turn"
    if search:
        assert [s for s in done.sources if s.cited]


async def test_our_continuation_sends_back_what_the_sdks_user_sends_back(fake_provider):
    fake_provider.script(MODEL, *CASES["paused search"][0])
    await collect(voice(fake_provider, True))
    ours = fake_provider.requests[-1].body["messages"][-1]
    fake_provider.reset()
    fake_provider.script(MODEL, *CASES["paused search"][0])
    await sdk_turn(fake_provider, True, tools=SEARCH)
    theirs = fake_provider.requests[-1].body["messages"][-1]
    assert ours == theirs
    assert [b["type"] for b in ours["content"]] == ["text", "server_tool_use"]


@pytest.mark.parametrize("case", ["plain", "search", "paused search", "structure"])
async def test_every_event_and_message_the_fake_sends_is_the_sdks_own_type(fake_provider, case):
    steps, search = CASES.get(case, ((Script('{"n": 1}'),), False))
    asking = voice(fake_provider, search)
    if case == "structure":  # the one tool the model must call: its input streams as JSON deltas
        asking = replace(
            asking, structure=Structure("n", '{"type": "object", "properties": {"n": {"type": "integer"}}}')
        )
    fake_provider.script(MODEL, *steps)
    await collect(asking)
    for request, step in zip(list(fake_provider.requests), steps, strict=True):  # each request asked again
        fake_provider.script(MODEL, step)
        async with httpx.AsyncClient(base_url=fake_provider.url) as raw:
            streamed = (await raw.post(request.path, json=request.body)).text.split("\n\n")
            whole = (await raw.post(request.path, json=request.body | {"stream": False})).json()
        for event in streamed:
            data = next((json.loads(line[6:]) for line in event.split("\n") if line.startswith("data: ")), {})
            if data and data["type"] != "ping":  # the API's keep-alive, no part of the message
                EVENT.validate_python(data)
        SDKMessage.model_validate(whole)


async def test_images_and_pdfs_go_as_the_sdk_sends_them_and_are_accepted(fake_provider):
    fake_provider.script(MODEL, PLAIN)
    done = completion(await collect(voice(fake_provider, False), WITH_FILES))
    ours = fake_provider.requests[-1].files
    content = [wire.block(IMAGE), wire.block(PDF), {"type": "text", "text": WITH_FILES[1].content}]
    reply = await client(fake_provider).messages.create(
        model=MODEL, max_tokens=300, system=SYSTEM, messages=[{"role": "user", "content": content}]
    )
    assert reply.content[0].text == done.text == PLAIN
    assert fake_provider.requests[-1].files == ours == [wire.block(IMAGE), wire.block(PDF)]
    assert [f["type"] for f in ours] == ["image", "document"]


async def test_an_http_error_raises_in_the_sdk_as_it_faults_our_call(fake_provider):
    fake_provider.script(MODEL, Script(status=529, error="Overloaded"))
    with pytest.raises(anthropic.APIStatusError) as raised:
        await client(fake_provider).messages.create(model=MODEL, max_tokens=300, messages=ASKED)
    assert raised.value.status_code == 529
    assert raised.value.body["error"]["type"] == "overloaded_error"
    error, _ = await failure(voice(fake_provider, False))
    assert (error.fault, error.status) == (Fault.OVERLOADED, 529)


async def test_an_error_event_mid_stream_raises_in_the_sdks_stream_as_in_ours(fake_provider):
    fake_provider.script(MODEL, Script(answer=PLAIN, fault="error_event", status=529, error="Overloaded"))
    with pytest.raises(anthropic.APIStatusError, match="Overloaded"):
        async with client(fake_provider).messages.stream(model=MODEL, max_tokens=300, messages=ASKED) as streaming:
            await streaming.get_final_message()
    error, events = await failure(voice(fake_provider, False))
    assert error.fault == Fault.OVERLOADED
    assert events
