"""The fake's Gemini API, parsed by the official ``google-genai`` package: every streamed chunk and
whole reply validates as the SDK's own ``GenerateContentResponse``, ``generate_content_stream`` and
``generate_content`` read the same text, sources (byte offsets after accents and emoji included) and
usage as our client reads from the same script, files go as both send them, and errors raise as
they would from Google."""

import base64
import json
from collections.abc import AsyncIterator

import httpx
import pytest
from google import genai
from google.genai import errors, types

from debates.providers import gemini as wire
from debates.providers.base import Fault, SearchTool, Source, Voice
from tests.fakes.provider_server import FakeProviderServer, Script
from tests.providers.helpers import collect, completion, failure
from tests.providers.official import ACCENTED, CITES, IMAGE, PDF, PLAIN, QUESTION, SAID, USAGE, WITH_FILES

pytestmark = pytest.mark.filterwarnings("ignore:Inheritance class AiohttpClientSession:DeprecationWarning")
MODEL = "gemini-2.5-flash"
SEARCH = types.GenerateContentConfig(
    system_instruction=QUESTION[0].content, tools=[types.Tool(google_search=types.GoogleSearch())]
)
PLAINLY = types.GenerateContentConfig(system_instruction=QUESTION[0].content)
CASES = {"plain": (PLAIN, False), "search": (SAID, True), "search after accents and emoji": (ACCENTED, True)}


@pytest.fixture
async def google(fake_provider: FakeProviderServer) -> AsyncIterator[genai.client.AsyncClient]:
    """The SDK's async client on the fake (held for the test: its HTTP session closes with it)."""
    held = genai.Client(
        api_key="AIza-fake", http_options=types.HttpOptions(base_url=fake_provider.url, api_version="v1beta")
    )
    yield held.aio
    await held.aio.aclose()


def voice(fake: FakeProviderServer, search: bool) -> Voice:
    return Voice("gemini", MODEL, fake.endpoint("gemini", search=SearchTool.GEMINI, max_retries=0), search=search)


def read(text: str, grounding: types.GroundingMetadata | None) -> tuple[Source, ...]:
    """The sources our parser reads from the grounding the SDK parsed (in the API's own names)."""
    metadata = grounding.model_dump(mode="json", by_alias=True, exclude_none=True) if grounding else {}
    return tuple(wire.grounding_sources(metadata, text))


def scripted(fake: FakeProviderServer, case: str) -> tuple[str, bool]:
    answer, search = CASES[case]
    fake.script(MODEL, Script(answer, sources=CITES if search else (), usage=USAGE))
    return answer, search


@pytest.mark.parametrize("case", CASES)
async def test_the_sdks_stream_reads_what_our_client_reads(fake_provider, google, case):
    _answer, search = scripted(fake_provider, case)
    done = completion(await collect(voice(fake_provider, search)))
    chunks = [
        chunk
        async for chunk in await google.models.generate_content_stream(
            model=MODEL, contents=QUESTION[1].content, config=SEARCH if search else PLAINLY
        )
    ]
    text = "".join(chunk.text or "" for chunk in chunks)
    grounded = [
        c.candidates[0].grounding_metadata for c in chunks if c.candidates and c.candidates[0].grounding_metadata
    ]
    assert text == done.text
    assert read(text, grounded[-1] if grounded else None) == done.sources
    usage = chunks[-1].usage_metadata
    assert usage is not None
    assert (usage.prompt_token_count, usage.candidates_token_count) == (done.tokens_in, done.tokens_out) == USAGE
    if search:
        assert [s for s in done.sources if s.cited]


@pytest.mark.parametrize("case", CASES)
async def test_a_whole_reply_reads_as_the_stream_our_client_read(fake_provider, google, case):
    _answer, search = scripted(fake_provider, case)
    done = completion(await collect(voice(fake_provider, search)))
    reply = await google.models.generate_content(
        model=MODEL, contents=QUESTION[1].content, config=SEARCH if search else PLAINLY
    )
    assert reply.text == done.text
    assert reply.candidates
    assert read(reply.text or "", reply.candidates[0].grounding_metadata) == done.sources
    assert reply.candidates[0].finish_reason == types.FinishReason.STOP


@pytest.mark.parametrize("case", CASES)
async def test_every_chunk_and_reply_the_fake_sends_is_the_sdks_own_type(fake_provider, google, case):
    _answer, search = scripted(fake_provider, case)
    await collect(voice(fake_provider, search))
    (request,) = fake_provider.requests
    async with httpx.AsyncClient(base_url=fake_provider.url) as raw:
        streamed = (await raw.post(f"{request.path}?alt=sse", json=request.body)).text.split("\n\n")
        path = request.path.replace(":streamGenerateContent", ":generateContent")
        whole = (await raw.post(path, json=request.body)).json()
    chunks = [json.loads(e.removeprefix("data: ")) for e in streamed if e.startswith("data: ")]
    assert chunks
    for chunk in [*chunks, whole]:
        types.GenerateContentResponse.model_validate(chunk)  # the SDK's types forbid a field they do not know


def inline(part: dict) -> tuple[str, bytes]:
    """A file part's type and bytes, in either spelling the API takes (ours snake_case, the SDK's camelCase)."""
    (data,) = part.values()
    encoded = data["data"] + "=" * (-len(data["data"]) % 4)  # the SDK writes URL-safe base64, unpadded
    return data.get("mime_type") or data["mimeType"], base64.urlsafe_b64decode(encoded)


async def test_images_and_pdfs_go_as_the_sdk_sends_them_and_are_accepted(fake_provider, google):
    fake_provider.script(MODEL, PLAIN)
    done = completion(await collect(voice(fake_provider, False), WITH_FILES))
    ours = fake_provider.requests[-1].files
    parts = [types.Part.from_bytes(data=p.data, mime_type=p.media_type) for p in (IMAGE, PDF)]
    reply = await google.models.generate_content(model=MODEL, contents=[*parts, WITH_FILES[1].content], config=PLAINLY)
    assert reply.text == done.text == PLAIN
    expected = [(IMAGE.media_type, IMAGE.data), (PDF.media_type, PDF.data)]
    assert [inline(p) for p in fake_provider.requests[-1].files] == [inline(p) for p in ours] == expected


async def test_an_http_error_raises_in_the_sdk_as_it_faults_our_call(fake_provider, google):
    fake_provider.script(MODEL, Script(status=429, error="Quota exhausted"))
    with pytest.raises(errors.ClientError) as raised:
        await google.models.generate_content(model=MODEL, contents="q")
    assert (raised.value.code, raised.value.status) == (429, "RESOURCE_EXHAUSTED")
    error, _ = await failure(voice(fake_provider, False))
    assert (error.fault, error.status) == (Fault.RATE_LIMITED, 429)


async def test_an_error_chunk_mid_stream_raises_in_the_sdks_stream_as_in_ours(fake_provider, google):
    fake_provider.script(MODEL, Script(answer=PLAIN, fault="error_event", status=503, error="The model is overloaded"))
    with pytest.raises(errors.ServerError, match="overloaded"):
        async for _ in await google.models.generate_content_stream(model=MODEL, contents="q"):
            pass
    error, events = await failure(voice(fake_provider, False))
    assert error.fault == Fault.OVERLOADED
    assert events
