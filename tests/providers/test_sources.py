"""Web search asked natively on each wire, and what each voice cites read into one shape
(``Source``), streamed and not: checked on real loopback sockets against the fake provider."""

import json
from dataclasses import replace
from decimal import Decimal

import httpx
import pytest

from debates.engine.sourcing import footnotes
from debates.providers import anthropic, gemini, openai
from debates.providers.base import Cited, Retrying, SearchTool, Source, Structure, Voice
from tests.fakes.provider_server import Script
from tests.fakes.wire import Cite
from tests.providers.helpers import WIRES, collect, completion, failure, text_of

ANSWER = "Water boils at 100 °C at sea level. It boils lower on mountains, about 70 °C on Everest. So: it depends."
BOILING = Cite(
    "https://example.org/boiling", "Boiling point", "water boils at 100 degrees Celsius", "Water boils at 100 °C"
)
EVEREST = Cite("https://example.org/everest", "Everest", "around 70 °C at the summit", "about 70 °C on Everest")
UNUSED = Cite("https://example.org/unused", "Looked up, never cited")
CITES = (BOILING, EVEREST, UNUSED)
# Perplexity numbers its pages in the text: [1] and [2] of the three it found.
MARKED = (
    "Water boils at 100 °C at sea level.[1] It boils lower on mountains, about 70 °C on Everest.[2] So: it depends."
)
# OpenAI's and OpenRouter's search models link each page after what it supports, inside the sentence or after it.
LINKED = (
    "Water boils at 100 °C at sea level. ([example.org](https://example.org/boiling?utm_source=openai)) "
    "It boils lower on mountains, about 70 °C on Everest ([example.org](https://example.org/everest?utm_source=openai"
    ")). So: it depends."
)
ANSWERS = {"openai": LINKED, "openrouter": LINKED, "perplexity": MARKED}

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

    def make(provider: str, search: bool = True, answer: str = "", **fields) -> Voice:
        wire, tool, model = SEARCHING[provider]
        answer = answer or ANSWERS.get(provider, ANSWER)
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


async def test_openai_url_citations_support_the_sentence_their_link_closes_not_the_next(voice):
    events = await collect(voice("openai"))
    done = completion(events)
    assert done.text == LINKED
    assert [(s.url, s.title, s.quote) for s in done.sources] == [
        (f"{BOILING.url}?utm_source=openai", BOILING.title, ""),
        (f"{EVEREST.url}?utm_source=openai", EVEREST.title, ""),
    ]
    assert [supported(done.text, s) for s in done.sources] == [
        "Water boils at 100 °C at sea level.",  # the link after the period closes this sentence
        "It boils lower on mountains, about 70 °C on Everest",  # the link before the period closes it too
    ]
    assert all(s.cited for s in done.sources)


async def test_openai_annotations_delivered_with_the_finishing_chunk_are_read(fake_provider, voice):
    done = completion(await collect(voice("openai")))
    assert len(done.sources) == 2
    (request,) = fake_provider.requests
    streamed = [e for e in fake_provider_events(fake_provider, request) if '"annotations"' in e]
    assert len(streamed) == 1
    assert '"finish_reason": "stop"' in streamed[0]  # the one chunk that ends the answer carries them


def fake_provider_events(fake_provider, request) -> list[str]:
    """The data lines the fake streams for this request (asked again, as our client asked it)."""
    reply = httpx.post(f"{fake_provider.url}{request.path}", json=request.body)
    return [line for line in reply.text.splitlines() if line.startswith("data: ")]


@pytest.mark.parametrize(
    ("written", "claim"),
    [
        (
            "A. Water boils at 100 °C at sea level ([example.org](https://example.org/b)). B.",
            "Water boils at 100 °C at sea level",
        ),
        (
            "A. Water boils at 100 °C at sea level. [example.org](https://example.org/b) B.",
            "Water boils at 100 °C at sea level.",
        ),
        (
            "A. It boils at 100 °C ([x.org](https://x.org/a)) ([example.org](https://example.org/b)). B.",
            "It boils at 100 °C",
        ),
        (
            "- **Sea level**: 100 °C. ([example.org](https://example.org/b))\n- Everest: 70 °C.",
            "**Sea level**: 100 °C.",
        ),
    ],
)
def test_a_link_supports_the_words_before_it_on_its_line(written, claim):
    at = written.index("[example.org]")
    at -= written[at - 1] == "("
    annotation = {
        "url": "https://example.org/b",
        "title": "B",
        "start_index": at,
        "end_index": written.index(")", at) + 1,
    }
    (source,) = openai.url_citations([{"type": "url_citation", "url_citation": annotation}], written)
    assert supported(written, source) == claim


def test_a_link_alone_on_its_line_supports_no_words_and_a_span_over_words_stands():
    alone = "Water boils at 100 °C.\n([example.org](https://example.org/b))"
    annotation = {"url": "https://example.org/b", "start_index": alone.index("("), "end_index": len(alone)}
    (source,) = openai.url_citations([{"type": "url_citation", "url_citation": annotation}], alone)
    assert (source.start, source.end, source.cited) == (None, None, True)
    words = {"url": "https://example.org/b", "start_index": 0, "end_index": 21}  # a server that spans the claim
    (source,) = openai.url_citations([{"type": "url_citation", "url_citation": words}], alone)
    assert supported(alone, source) == "Water boils at 100 °C"


async def test_openrouter_annotations_carry_the_pages_text(voice):
    done = completion(await collect(voice("openrouter")))
    assert [(s.url, s.quote) for s in done.sources] == [
        (f"{BOILING.url}?utm_source=openai", BOILING.quote),
        (f"{EVEREST.url}?utm_source=openai", EVEREST.quote),
    ]
    assert supported(done.text, done.sources[0]) == "Water boils at 100 °C at sea level."


async def test_perplexity_markers_decide_what_is_cited_and_every_other_result_was_looked_up(voice):
    done = completion(await collect(voice("perplexity")))
    cited = [s for s in done.sources if s.cited]
    assert [(s.url, s.title, s.quote, s.number) for s in cited] == [
        (BOILING.url, BOILING.title, BOILING.quote, 1),
        (EVEREST.url, EVEREST.title, EVEREST.quote, 2),
    ]
    assert [supported(done.text, s) for s in cited] == [
        "Water boils at 100 °C at sea level.",
        "It boils lower on mountains, about 70 °C on Everest.",
    ]
    assert [(s.url, s.cited) for s in done.sources if not s.cited] == [(UNUSED.url, False)]  # in `citations` too


@pytest.mark.parametrize("omit", [(), ("citations",)], ids=["with citations", "search_results only"])
async def test_perplexity_markers_naming_some_results_cite_those_and_keep_their_numbers(voice, omit):
    answer = "Water boils at 100 °C at sea level.[3] On Everest it is about 70 °C.[1][3]"
    done = completion(await collect(voice("perplexity", answer=answer, script={"omit": omit})))
    cited = [(s.url, s.number, supported(done.text, s)) for s in done.sources if s.cited]
    assert cited == [
        (BOILING.url, 1, "On Everest it is about 70 °C."),
        (UNUSED.url, 3, "Water boils at 100 °C at sea level."),
        (UNUSED.url, 3, "On Everest it is about 70 °C."),
    ]
    assert [s.url for s in done.sources if not s.cited] == [EVEREST.url]
    assert [n.number for n in footnotes(done.sources, done.text)] == [1, 3]  # as the text numbers them


async def test_perplexity_without_markers_cites_nothing_it_only_looked_up(voice):
    done = completion(await collect(voice("perplexity", answer=ANSWER)))
    assert done.sources
    assert not [s for s in done.sources if s.cited]


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


PAUSED = "Let me look that up."


async def test_anthropic_pause_turn_is_sent_back_and_continued_until_the_answer_ends(fake_provider, voice):
    searching = voice("anthropic", price_search=Decimal("10"))
    fake_provider.script(
        searching.model,
        Script(answer=PAUSED, finish="pause_turn", usage=(100, 5)),
        Script(ANSWER, sources=CITES, usage=(150, 40)),
    )
    done = completion(await collect(searching))
    assert done.text == f"{PAUSED}\n\n{ANSWER}"  # the text after the search is a paragraph of its own
    assert done.finish_reason == "stop"
    cited = [s for s in done.sources if s.cited]
    assert [supported(done.text, s) for s in cited] == [BOILING.supports, EVEREST.supports]
    assert [s.url for s in done.sources if not s.cited] == [c.url for c in CITES]
    assert (done.tokens_in, done.tokens_out, done.searches) == (250, 45, 1)  # both requests, one search
    paused, continued = fake_provider.requests
    assert continued.body["messages"][:-1] == paused.body["messages"]
    assert continued.body["messages"][-1] == {
        "role": "assistant",
        "content": [
            {"type": "text", "text": PAUSED},
            {
                "type": "server_tool_use",
                "id": "srvtoolu_fake",
                "name": "web_search",
                "input": {"query": paused.prompt[:60]},
            },
        ],
    }
    assert continued.body["tools"] == paused.body["tools"]


async def test_anthropic_turn_still_paused_after_every_continuation_ends_cut_off(fake_provider, voice):
    searching = voice("anthropic")
    fake_provider.script(searching.model, Script(answer=PAUSED, finish="pause_turn"))
    done = completion(await collect(searching))
    assert len(fake_provider.requests) == 1 + anthropic.MAX_CONTINUATIONS
    assert done.finish_reason == "length"
    assert done.text.startswith(PAUSED)


async def test_anthropic_paused_turn_fails_whole_when_its_continuation_fails(fake_provider, voice):
    searching = voice("anthropic")
    searching = replace(searching, endpoint=replace(searching.endpoint, max_retries=0))
    fake_provider.script(searching.model, Script(answer=PAUSED, finish="pause_turn"), Script(status=529))
    error, events = await failure(searching)
    assert error.status == 529
    assert text_of(events) == PAUSED  # shown, then the call failed: nothing stored as an answer


MULTIBYTE = "Çà et là 🌊: l'eau bout à 100 °C au niveau de la mer. Sur l'Everest, elle bout vers 70 °C — 🏔️ bien moins."
MER = Cite(
    "https://example.org/mer", "Ébullition", "100 °C au niveau de la mer", "l'eau bout à 100 °C au niveau de la mer."
)
SOMMET = Cite("https://example.org/sommet", "Everest", "environ 70 °C", "Sur l'Everest, elle bout vers 70 °C")


async def test_gemini_byte_offsets_after_accents_and_emoji_credit_the_right_sentence(fake_provider, voice):
    searching = voice("gemini", answer=MULTIBYTE)
    fake_provider.script(searching.model, Script(answer=MULTIBYTE, sources=(MER, SOMMET, UNUSED)))
    done = completion(await collect(searching))
    cited = [s for s in done.sources if s.cited]
    assert [supported(done.text, s) for s in cited] == [MER.supports, SOMMET.supports]
    segment = gemini_segments(fake_provider)[1]
    assert segment["startIndex"] > MULTIBYTE.index(SOMMET.supports)  # bytes, not characters


def test_gemini_segments_are_read_as_bytes_even_without_their_text():
    metadata = {
        "groundingChunks": [{"web": {"uri": MER.url}}],
        "groundingSupports": [
            {
                "segment": {"startIndex": len(MULTIBYTE[:13].encode()), "endIndex": len(MULTIBYTE[:55].encode())},
                "groundingChunkIndices": [0],
            }
        ],
    }
    (source,) = gemini.grounding_sources(metadata, MULTIBYTE)
    assert supported(MULTIBYTE, source) == MULTIBYTE[13:55]


def gemini_segments(fake_provider) -> list[dict]:
    (request,) = fake_provider.requests
    last = [line for line in fake_provider_events(fake_provider, request) if "groundingMetadata" in line][-1]
    supports = json.loads(last.removeprefix("data: "))["candidates"][0]["groundingMetadata"]["groundingSupports"]
    return [support["segment"] for support in supports]


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
    assert tuple(openai.url_citations(message["annotations"], message["content"])) == streamed.sources


async def test_perplexity_citations_of_a_whole_reply_read_as_the_streamed_ones(fake_provider, voice):
    streamed = completion(await collect(voice("perplexity")))
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
    assert message["usage"]["server_tool_use"] == {"web_search_requests": 1, "web_fetch_requests": 0}


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


@pytest.mark.parametrize(
    ("provider", "search", "billed"),
    [
        ("openai", True, 1),
        ("openai", False, 1),  # a search model searches on every call, and bills it
        ("openrouter", True, 1),
        ("openrouter", False, 0),
        ("perplexity", True, 1),
        ("perplexity", False, 0),  # disable_search: no search, no request fee for one
    ],
)
async def test_every_call_a_provider_bills_a_search_for_is_priced(voice, provider, search, billed):
    done = completion(
        await collect(voice(provider, search=search, price_search=Decimal("25"), script={"usage": (0, 0)}))
    )
    assert (done.searches, done.cost) == (billed, Decimal("0.025") * billed)


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
