"""What each claim rests on: footnotes, a claim matched to the sources that back it, and sources
carried to the next round's dossier, the claim ledger and the moderator."""

from dataclasses import replace

import pytest

from debates.engine import sourcing
from debates.engine.dossier import scrub
from debates.engine.events import ContributionCited, ContributionFinished, LedgerUpdated
from debates.engine.prompts import SOURCED
from debates.engine.run import run
from debates.providers.base import SearchTool, Source
from tests.fakes.answers import SYNTHESIS
from tests.fakes.provider_server import Script
from tests.fakes.wire import Cite

BOILING = "https://example.org/boiling"
TEXT = (
    "Water boils at 100 °C at sea level, so the kettle reads right. On Everest it boils near 70 °C.\n\n"
    "ANSWER: 100 °C\n"
    "CLAIMS:\n"
    "1. [fact] Water boils at 100 °C at sea level | confidence: 90% | falsified if: a calibrated thermometer "
    "reads otherwise at sea level\n"
    "2. [inference] The kettle's thermostat is accurate | confidence: 60% | falsified if: it reads 95 °C in "
    "boiling water\n"
)


def span(text: str, words: str, **fields) -> Source:
    at = text.index(words)
    return Source(start=at, end=at + len(words), **fields)


def claim(text: str) -> dict:
    return {"id": "A1", "text": text}


# --- footnotes ------------------------------------------------------------------------------


def test_the_same_page_cited_twice_is_one_footnote_numbered_in_the_order_first_cited():
    sources = [
        Source(url="https://b.example/x", title="B"),
        Source(url="https://a.example/y", title="A"),
        Source(url="https://b.example/x", title="B again"),
        Source(url="https://c.example/z", cited=False),
    ]
    notes = sourcing.footnotes(sources)
    assert [(n.number, n.source.url, n.name) for n in notes] == [
        (1, "https://b.example/x", "B"),
        (2, "https://a.example/y", "A"),
    ]
    assert [s.url for s in sourcing.looked_up(sources)] == ["https://c.example/z"]


def test_footnotes_keep_the_numbers_the_answer_gives_them_and_number_in_order_otherwise():
    numbered = [Source(url="https://a.example", number=3), Source(url="https://b.example", number=1)]
    assert [n.number for n in sourcing.footnotes(numbered)] == [3, 1]
    mixed = [Source(url="https://a.example", number=3), Source(url="https://b.example")]
    assert [n.number for n in sourcing.footnotes(mixed)] == [1, 2]


def test_a_passage_starts_after_the_citation_that_closes_the_sentence_before():
    text = "Water boils at 100 °C. ([a.example](https://a.example/x)) On Everest it boils near 70 °C.[2] Fine."
    assert sourcing.passage(text, span(text, "On Everest")) == "On Everest it boils near 70 °C.[2]"


def test_a_passage_ends_at_a_japanese_or_chinese_full_stop():
    text = "東京の桜は3月24日に開花しました。満開は3月30日頃です。"
    assert sourcing.passage(text, span(text, "満開")) == "満開は3月30日頃です。"
    assert sourcing.passage(text, span(text, "東京")) == "東京の桜は3月24日に開花しました。"


def test_a_footnote_is_named_by_its_title_else_its_site_and_a_document_by_its_page():
    assert sourcing.footnotes([Source(url="https://www.nature.com/articles/x")])[0].name == "nature.com"
    assert sourcing.footnotes([Source(document="report.pdf", page=3)])[0].name == "report.pdf, page 3"


def test_a_footnote_supports_the_whole_sentences_its_span_falls_in():
    (note,) = sourcing.footnotes([span(TEXT, "100 °C at sea level", url=BOILING)], TEXT)
    assert note.passages == ("Water boils at 100 °C at sea level, so the kettle reads right.",)


# --- what backs a claim --------------------------------------------------------------------


def test_a_claim_the_cited_passage_says_is_backed_and_the_others_are_not():
    notes = sourcing.footnotes([span(TEXT, "Water boils at 100 °C", url=BOILING)], TEXT)
    assert sourcing.backing(claim("Water boils at 100 °C at sea level"), TEXT, notes) == [1]
    assert sourcing.backing(claim("The kettle's thermostat is accurate"), TEXT, notes) == []


def test_a_citation_on_the_claims_own_line_backs_it():
    notes = sourcing.footnotes([span(TEXT, "The kettle's thermostat is accurate", url="https://k.example")], TEXT)
    assert sourcing.backing(claim("The kettle's thermostat is accurate"), TEXT, notes) == [1]


def test_a_passage_with_another_number_never_backs_a_claim():
    text = "Twelve percent of 250 is 30, as any calculator shows."
    notes = sourcing.footnotes([span(text, "Twelve percent of 250 is 30", url="https://calc.example")], text)
    assert sourcing.backing(claim("12 % of 250 is 40"), text, notes) == []
    assert sourcing.backing(claim("12 % of 250 is 30"), text, notes) == [1]


def test_a_passage_saying_the_opposite_never_backs_a_claim():
    text = "Read replicas do not reduce write latency, the vendor's guide says."
    notes = sourcing.footnotes([span(text, "Read replicas do not reduce write latency", url="https://g.example")], text)
    assert sourcing.backing(claim("Read replicas reduce write latency"), text, notes) == []


def test_a_claim_naming_the_page_or_its_site_or_its_marker_is_backed_by_it():
    notes = sourcing.footnotes([Source(url="https://www.postgresql.org/docs/17/hot-standby.html")])
    for said in (
        "Hot standby serves reads (https://www.postgresql.org/docs/17/hot-standby.html)",
        "Hot standby serves reads, per postgresql.org",
        "Hot standby serves reads [1]",
    ):
        assert sourcing.backing(claim(said), "", notes) == [1], said


@pytest.mark.parametrize(
    ("passage", "said"),
    [
        ("L'acqua bolle a 100 °C al livello del mare.", "L'acqua bolle a 100 °C al livello del mare"),
        ("El agua hierve a 100 °C al nivel del mar, según el manual.", "El agua hierve a 100 °C al nivel del mar"),
    ],
)
def test_a_claim_in_another_language_is_backed_by_the_passage_that_says_it(passage, said):
    notes = sourcing.footnotes([span(passage, passage[:20], url=BOILING)], passage)
    assert sourcing.backing(claim(said), passage, notes) == [1]


def test_a_voice_that_cites_nothing_has_every_claim_unsourced():
    record = {"claims": [claim("Water boils at 100 °C at sea level")]}
    assert sourcing.attach(record, TEXT, [])["claims"][0]["sources"] == []


def test_a_url_in_a_cited_page_survives_the_identity_scrub():
    said = "As Claude, I checked https://www.anthropic.com/news/claude-sonnet-4 and https://openai.com/index/x."
    scrubbed = scrub(said, ["Fake Anthropic", "claude-sonnet-4", "openai"])
    assert "https://www.anthropic.com/news/claude-sonnet-4" in scrubbed
    assert "https://openai.com/index/x" in scrubbed
    assert scrubbed.startswith("As [identity removed], I checked")


# --- a debate whose voices search ------------------------------------------------------------

SEARCHERS = {"p1": ("anthropic", SearchTool.ANTHROPIC), "p3": ("gemini", SearchTool.GEMINI)}
CITED = Cite(BOILING, "Boiling point", "water boils at 100 degrees Celsius at sea level", "Water boils at 100 °C")


def answer(request) -> str:
    if "on your own" in request.prompt:
        return TEXT
    return "I confirm it: the page says so.\n\nCHANGE: none | the page holds\nANSWER: 100 °C"


@pytest.fixture
def searching(fake_provider, spec_factory):
    """Panelists A (Anthropic) and C (Gemini) search and cite; B (OpenAI) may not search."""
    models = ["model-alpha", "model-beta", "model-gamma"]
    for model in ("model-alpha", "model-gamma"):
        fake_provider.script(model, Script(answer=answer, sources=(CITED,)))
    fake_provider.script("model-beta", answer)
    fake_provider.script("model-moderator", SYNTHESIS)
    spec = spec_factory(3, models=models, wires=["anthropic", "openai", "gemini"])
    seats = tuple(
        replace(s, voice=replace(s.voice, search=True, endpoint=replace(s.voice.endpoint, search=SEARCHERS[s.key][1])))
        if s.key in SEARCHERS
        else s
        for s in spec.seats
    )
    return replace(spec, seats=seats)


async def test_searching_voices_are_asked_their_tool_in_the_panels_rounds_only(fake_provider, searching, sink):
    await run(searching, sink)
    alpha, beta = fake_provider.requests_for("model-alpha"), fake_provider.requests_for("model-beta")
    assert alpha
    assert all(r.body["tools"][0]["type"] == "web_search_20250305" for r in alpha)
    assert all("can search the web" in r.system for r in alpha)
    assert all("tools" not in r.body and "can search the web" not in r.system for r in beta)
    others = [*fake_provider.judge_requests, *fake_provider.requests_for("model-moderator")]
    assert others
    assert all("tools" not in r.body and "web_search_options" not in r.body for r in others)


async def test_sources_stream_to_the_sink_and_are_stored_with_each_contribution(searching, sink):
    await run(searching, sink)
    cited = {(e.round, e.seat) for e in sink.of(ContributionCited)}
    assert {seat for _, seat in cited} == {"p1", "p3"}
    blind = [e.result for e in sink.of(ContributionFinished) if e.result.kind == "answer"]
    by_seat = {r.seat: r for r in blind}
    assert [s.url for s in by_seat["p1"].sources if s.cited] == [BOILING]
    assert by_seat["p1"].searches == 1
    assert by_seat["p2"].sources == ()
    assert [c["sources"] for c in by_seat["p1"].ledger["claims"]] == [[1], []]


async def test_the_next_rounds_dossier_lists_each_voices_sources_and_marks_its_claims(fake_provider, searching, sink):
    await run(searching, sink)
    labels = {r.seat: r.label for r in (e.result for e in sink.of(ContributionFinished))}
    debate = [r for r in fake_provider.requests_for("model-beta") if "on your own" not in r.prompt]
    assert debate
    prompt = debate[0].prompt
    a, c = labels["p1"].removeprefix("Panelist "), labels["p3"].removeprefix("Panelist ")
    assert f"{a}1 (fact, 90%" in prompt
    assert "Water boils at 100 °C at sea level [sources 1]" in prompt
    assert "The kettle's thermostat is accurate [unsourced]" in prompt
    assert f"[1] Boiling point — {BOILING} — “water boils at 100 degrees Celsius at sea level”" in prompt
    assert c in prompt
    searcher = next(r for r in fake_provider.requests_for("model-alpha") if "on your own" not in r.prompt).prompt
    assert "It cites no source." in searcher  # Panelist B, read by a voice that searched


async def test_the_ledger_marks_each_claim_sourced_or_not_and_the_moderator_is_told_to_weigh_them(
    fake_provider, searching, sink
):
    await run(searching, sink)
    ledger = sink.of(LedgerUpdated)[-1].ledger
    assert ledger["sourcing"] is True
    backed = {row["id"]: [s["url"] for s in row["sources"]] for row in ledger["claims"]}
    firsts = [claim_id for claim_id in backed if claim_id.endswith("1")]
    assert {tuple(backed[c]) for c in firsts} == {(BOILING,), ()}  # B's own first claim cites nothing
    (moderator,) = fake_provider.requests_for("model-moderator")
    assert "— sourced: [1] Boiling point (https://example.org/boiling)" in moderator.prompt
    assert "— unsourced" in moderator.prompt
    assert SOURCED.strip() in moderator.prompt


async def test_a_panel_that_does_not_search_reads_its_prompts_as_before(fake_provider, spec_factory, sink):
    for model in ("model-alpha", "model-beta", "model-gamma"):
        fake_provider.script(model, answer)
    fake_provider.script("model-moderator", SYNTHESIS)
    await run(spec_factory(3), sink)
    assert not sink.of(ContributionCited)
    assert sink.of(LedgerUpdated)[-1].ledger["sourcing"] is False
    prompts = " ".join(r.prompt for r in fake_provider.requests)
    assert "unsourced" not in prompts
    assert "Sources it cites" not in prompts


def test_a_span_that_ends_with_its_sentence_supports_that_sentence_only():
    text = "Water boils at 100 °C at sea level.[1] Higher up it boils lower."
    (note,) = sourcing.footnotes([span(text, "Water boils at 100 °C at sea level.[1]", url=BOILING)], text)
    assert note.passages == ("Water boils at 100 °C at sea level.[1]",)


def test_a_claim_is_not_backed_by_every_citation_of_the_paragraph_that_states_it_in_passing():
    text = (
        "Water boils at 100 °C at sea level. "
        + "Pressure falls with height, and the boiling point with it. " * 6
        + "On Everest it boils near 70 °C.\n\nCLAIMS:\n1. [fact] Water boils at 100 °C at sea level | confidence: 90%\n"
    )
    everest = span(text, "On Everest it boils near 70 °C.", url="https://everest.example")
    notes = sourcing.footnotes([span(text, "Water boils at 100 °C", url=BOILING), everest], text)
    assert sourcing.backing(claim("Water boils at 100 °C at sea level"), text, notes) == [1]
