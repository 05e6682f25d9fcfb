"""Web search asked natively on each wire, and what each voice cites read into one shape
(``Source``), streamed and not: checked on real loopback sockets against the fake provider."""

from decimal import Decimal

import httpx
import pytest

from debates.providers import anthropic, gemini, openai
from debates.providers.base import Cited, Retrying, SearchTool, Source, Structure, Voice
from tests.fakes.provider_server import Script
from tests.fakes.wire import Cite
from tests.providers.helpers import WIRES, collect, completion, text_of

ANSWER = "Water boils at 100 °C at sea level. It boils lower on mountains, about 70 °C on Everest. So: it depends."
BOILING = Cite(
    "https://example.org/boiling", "Boiling point", "water boils at 100 degrees Celsius", "Water boils at 100 °C"
)
EVEREST = Cite("https://example.org/everest", "Everest", "around 70 °C at the summit", "about 70 °C on Everest")
UNUSED = Cite("https://example.org/unused", "Looked up, never cited")
CITES = (BOILING, EVEREST, UNUSED)
# Perplexity numbers its citations in the text.
MARKED = (
    "Water boils at 100 °C at sea level.[1] It boils lower on mountains, about 70 °C on Everest.[2] So: it depends."
)

# How each provider's voice is set up to search: (wire, its search tool, a model that searches).
SEARCHING = {
    "openai": ("openai", SearchTool.OPENAI, "gpt-4o-search-preview"),
    "openrouter": ("openai", SearchTool.OPENROUTER, "anthropic/claude-sonnet-4"),
    "perplexity": ("openai", SearchTool.PERPLEXITY, "sonar"),
    "anthropic": ("anthropic", SearchTool.ANTHROPIC, "claude-sonnet-4-5"),
    "gemini": ("gemini", SearchTool.GEMINI, "gemini-2.5-flash"),
}


@pytest.fixture
def voice(fake_provider):
    """A voice of ``provider`` that may (or may not) search, with its answer and sources scripted."""

    def make(provider: str, search: bool = True, answer: str = ANSWER, **fields) -> Voice:
        wire, tool, model = SEARCHING[provider]
        fake_provider.script(model, Script(answer=answer, sources=CITES, **fields.pop("script", {})))
        return Voice(provider, model, fake_provider.endpoint(wire, search=tool), search=search, **fields)

    return make


def supported(text: str, source: Source) -> str:
    """The words of the answer a source supports."""
    assert source.start is not None, source
    assert source.end is not None, source
    return text[source.start : source.end]


# --- what each wire is asked ------------------------------------------------------------------


async def test_openai_asks_its_search_model_with_web_search_options_and_no_temperature(fake_provider, voice):
    await collect(voice("openai", temperature=0.3))
    (request,) = fake_provider.requests
    assert request.body["web_search_options"] == {}
    assert "temperature" not in request.body  # OpenAI's search models refuse one
    assert request.body["stream"] is True


async def test_openrouter_asks_its_web_plugin(fake_provider, voice):
    await collect(voice("openrouter"))
    (request,) = fake_provider.requests
    assert request.body["plugins"] == [{"id": "web", "max_results": openai.WEB_RESULTS}]
    assert "web_search_options" not in request.body


async def test_perplexity_searches_unless_told_not_to(fake_provider, voice):
    await collect(voice("perplexity"))
    await collect(voice("perplexity", search=False))
    searched, told_not_to = fake_provider.requests
    assert "disable_search" not in searched.body
    assert told_not_to.body["disable_search"] is True


async def test_anthropic_asks_its_server_side_web_search_tool(fake_provider, voice):
    await collect(voice("anthropic"))
    (request,) = fake_provider.requests
    assert request.body["tools"] == [{"type": "web_search_20250305", "name": "web_search", "max_uses": 5}]
    assert "tool_choice" not in request.body  # the model decides when to search


async def test_anthropic_never_offers_search_beside_a_structure_it_must_call(fake_provider, voice):
    structure = Structure("grouping", '{"type": "object", "properties": {}}')
    await collect(voice("anthropic", answer="{}", structure=structure))
    (request,) = fake_provider.requests
    assert [tool["name"] for tool in request.body["tools"]] == ["grouping"]


async def test_gemini_asks_google_search_grounding_and_leaves_json_to_the_prompt(fake_provider, voice):
    await collect(voice("gemini", answer='{"decision": "boil it"}', json_output=True))
    (request,) = fake_provider.requests
    assert request.body["tools"] == [{"google_search": {}}]
    assert "responseMimeType" not in request.body["generationConfig"]  # Gemini 2 refuses one beside a tool


@pytest.mark.parametrize("provider", ["openai", "openrouter", "anthropic", "gemini"])
async def test_a_voice_that_may_not_search_is_asked_no_search(fake_provider, voice, provider):
    await collect(voice(provider, search=False))
    (request,) = fake_provider.requests
    assert not {"web_search_options", "plugins", "tools", "disable_search"} & set(request.body)


# --- what each wire cites, streamed -----------------------------------------------------------


async def test_openai_url_citations_stream_as_annotations_of_the_answer(voice):
    events = await collect(voice("openai"))
    done = completion(events)
    assert [(s.url, s.title, s.quote) for s in done.sources] == [
        (BOILING.url, BOILING.title, ""),
        (EVEREST.url, EVEREST.title, ""),
    ]
    assert [supported(done.text, s) for s in done.sources] == [BOILING.supports, EVEREST.supports]
    assert all(s.cited for s in done.sources)


async def test_openrouter_annotations_carry_the_pages_text(voice):
    done = completion(await collect(voice("openrouter")))
    assert [(s.url, s.quote) for s in done.sources] == [(BOILING.url, BOILING.quote), (EVEREST.url, EVEREST.quote)]


async def test_perplexity_citations_are_numbered_by_the_texts_markers(voice):
    done = completion(await collect(voice("perplexity", answer=MARKED)))
    cited = [s for s in done.sources if s.cited]
    assert [(s.url, s.title, s.quote) for s in cited] == [
        (BOILING.url, BOILING.title, BOILING.quote),
        (EVEREST.url, EVEREST.title, EVEREST.quote),
    ]
    assert [supported(done.text, s) for s in cited] == [
        "Water boils at 100 °C at sea level.[1]",
        "It boils lower on mountains, about 70 °C on Everest.[2]",
    ]
    assert [(s.url, s.cited) for s in done.sources if not s.cited] == [(UNUSED.url, False)]


async def test_anthropic_search_results_are_looked_up_and_its_citations_support_their_block(voice):
    events = await collect(voice("anthropic"))
    done = completion(events)
    assert done.text == ANSWER  # the search's query, streamed as the tool's input, is no part of the answer
    looked_up = [s for s in done.sources if not s.cited]
    assert [s.url for s in looked_up] == [c.url for c in CITES]
    cited = [s for s in done.sources if s.cited]
    assert [(s.url, s.quote) for s in cited] == [(BOILING.url, BOILING.quote), (EVEREST.url, EVEREST.quote)]
    assert [supported(done.text, s) for s in cited] == [BOILING.supports, EVEREST.supports]
    assert done.searches == 1


async def test_gemini_grounding_supports_map_byte_offsets_to_the_answers_characters(voice):
    done = completion(await collect(voice("gemini")))
    cited = [s for s in done.sources if s.cited]
    assert [(s.url, s.title) for s in cited] == [(BOILING.url, BOILING.title), (EVEREST.url, EVEREST.title)]
    assert [supported(done.text, s) for s in cited] == [BOILING.supports, EVEREST.supports]  # "°" is two bytes
    assert [s.url for s in done.sources if not s.cited] == [UNUSED.url]
    assert done.searches == 1


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
async def test_sources_stream_as_they_are_read_before_the_completion(voice, provider):
    events = await collect(voice(provider))
    cited = [e for e in events if isinstance(e, Cited)]
    assert cited
    assert events.index(cited[-1]) < events.index(completion(events))
    assert sum((e.sources for e in cited), ()) == completion(events).sources


@pytest.mark.parametrize("wire", WIRES)
async def test_an_answer_that_cites_nothing_has_no_sources(fake_provider, wire):
    fake_provider.script("m", "Just an answer.")
    done = completion(await collect(fake_provider.voice(wire, "m")))
    assert (done.sources, done.searches) == ((), 0)


# --- the same, not streamed --------------------------------------------------------------------


async def whole(fake_provider, request) -> dict:
    """The same request answered whole (``"stream": false``, Gemini's ``:generateContent``)."""
    path = request.path.replace(":streamGenerateContent", ":generateContent")
    body = {**request.body, "stream": False} if request.wire != "gemini" else request.body
    async with httpx.AsyncClient() as client:
        reply = await client.post(f"{fake_provider.url}{path}", json=body, headers={"anthropic-version": "x"})
    return reply.json()


@pytest.mark.parametrize("provider", ["openai", "openrouter"])
async def test_openai_annotations_of_a_whole_message_read_as_the_streamed_ones(fake_provider, voice, provider):
    streamed = completion(await collect(voice(provider)))
    message = (await whole(fake_provider, fake_provider.requests[0]))["choices"][0]["message"]
    assert message["content"] == streamed.text
    assert tuple(openai.url_citations(message["annotations"])) == streamed.sources


async def test_perplexity_citations_of_a_whole_reply_read_as_the_streamed_ones(fake_provider, voice):
    streamed = completion(await collect(voice("perplexity", answer=MARKED)))
    reply = await whole(fake_provider, fake_provider.requests[0])
    text = reply["choices"][0]["message"]["content"]
    assert tuple(openai.perplexity_sources(reply["citations"], reply["search_results"], text)) == streamed.sources


async def test_anthropic_blocks_of_a_whole_message_read_as_the_streamed_ones(fake_provider, voice):
    streamed = completion(await collect(voice("anthropic")))
    message = await whole(fake_provider, fake_provider.requests[0])
    found, at = [], 0
    for block in message["content"]:
        found += anthropic.block_sources(block, at)
        at += len(block.get("text", "")) if block["type"] == "text" else 0
    assert tuple(found) == streamed.sources
    assert message["usage"]["server_tool_use"] == {"web_search_requests": 1}


async def test_gemini_grounding_of_a_whole_reply_reads_as_the_streamed_one(fake_provider, voice):
    streamed = completion(await collect(voice("gemini")))
    candidate = (await whole(fake_provider, fake_provider.requests[0]))["candidates"][0]
    text = candidate["content"]["parts"][0]["text"]
    assert tuple(gemini.grounding_sources(candidate["groundingMetadata"], text)) == streamed.sources


# --- documents, prices, retries ----------------------------------------------------------------


def test_a_citation_into_an_attached_pdf_names_the_document_and_its_page():
    citation = {
        "type": "page_location",
        "cited_text": "Revenue grew 12 %.",
        "document_index": 0,
        "document_title": "annual-report.pdf",
        "start_page_number": 3,
        "end_page_number": 4,
    }
    source = anthropic.cited(citation, 10, 40)
    assert source == Source(document="annual-report.pdf", page=3, quote="Revenue grew 12 %.", start=10, end=40)
    assert source.key == "annual-report.pdf#3"
    untitled = anthropic.cited(citation | {"document_title": None, "type": "char_location"}, 0, 5)
    assert untitled is not None
    assert (untitled.document, untitled.page) == ("document 1", None)


def test_a_stored_source_reads_back_and_a_stored_url_is_a_source():
    source = Source(url="https://example.org/a", title="A", quote="q", start=1, end=9)
    assert Source.from_dict(source.as_dict()) == source
    assert source.as_dict() == {"url": "https://example.org/a", "title": "A", "quote": "q", "start": 1, "end": 9}
    assert Source.from_dict("https://example.org/old") == Source(url="https://example.org/old")


async def test_searches_are_priced_at_the_voices_price_per_thousand(voice):
    done = completion(await collect(voice("anthropic", price_search=Decimal("10"), script={"usage": (1000, 100)})))
    assert done.searches == 1
    assert done.cost == Decimal("0.01")  # tokens at no price, one search at $10 a 1,000


async def test_a_retry_voids_the_sources_the_failed_attempt_had_read(fake_provider, voice):
    searching = voice("anthropic")
    dropped = Script(answer=ANSWER, sources=CITES, fault="drop", after_chunks=12)
    fake_provider.script(searching.model, dropped, Script(answer="Plain."))
    events = await collect(searching)
    (retry,) = [e for e in events if isinstance(e, Retrying)]
    assert retry.discard is True
    assert any(isinstance(e, Cited) for e in events[: events.index(retry)])  # read, then void
    done = completion(events)
    assert (done.text, done.sources) == ("Plain.", ())
    assert text_of(events[events.index(retry) :]) == "Plain."
