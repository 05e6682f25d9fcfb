"""Sources on the page: numbered footnotes on each card as they stream in and once it is finished,
a voice that cites nothing shown as unsourced, each claim of the ledger sourced or not, and which
voices searched the web."""

import re

import pytest

from debates.engine import ledger as ledgers
from debates.engine import sourcing
from debates.engine.events import (
    ContributionChunk,
    ContributionCited,
    ContributionFinished,
    ContributionResult,
    ContributionStarted,
    RoundStarted,
)
from debates.engine.reading import closing
from debates.live.cards import Card
from debates.live.sink import LiveSink, fragment
from debates.live.state import Totals, group_name
from debates.models import Contribution, Round
from debates.providers.base import Source
from debates.runs.execute import Tee
from debates.runs.recorder import Recorder
from tests.viewer.test_ledger_page import page_of, row, words

pytestmark = pytest.mark.django_db(transaction=True)

BOILING = "https://example.org/boiling"
CITED = (
    "Water boils at 100 °C at sea level.\n\nANSWER: 100 °C\nCLAIMS:\n"
    "1. [fact] Water boils at 100 °C at sea level | confidence: 90% | falsified if: a thermometer reads otherwise\n"
    "2. [inference] The kettle is accurate | confidence: 60% | falsified if: it reads 95 °C in boiling water\n"
)
PLAIN = (
    "It boils at 100 °C.\n\nANSWER: 100 °C\nCLAIMS:\n"
    "1. [fact] Water boils at 100 °C | confidence: 80% | falsified if: a calibrated thermometer reads otherwise\n"
)


def source(text: str, words: str) -> Source:
    at = text.index(words)
    return Source(url=BOILING, title="Boiling point", quote="water boils at 100 degrees", start=at, end=at + len(words))


def result(seat: str, label: str, text: str, sources=(), searches=0) -> ContributionResult:
    record = sourcing.attach(closing.read("answer", text, label), text, sources)
    return ContributionResult(
        0, seat, label, "answer", "done", text=text, sources=tuple(sources), searches=searches, ledger=record
    )


def test_a_card_numbers_what_it_cites_and_says_what_each_source_supports():
    card = Card.from_result(result("p1", "Panelist A", CITED, [source(CITED, "Water boils at 100 °C")], 1))
    html = fragment("round.html#card", card=card)
    notes = html.split('class="footnotes"', 1)[1].split("</ol>", 1)[0]
    assert f'<a href="{BOILING}" rel="noopener noreferrer" target="_blank">Boiling point</a>' in notes
    assert "example.org" in notes
    assert "water boils at 100 degrees" in notes
    assert "supports “Water boils at 100 °C at sea level.”" in words(notes)
    assert "1 search" in words(html)
    assert "Water boils at 100 °C at sea level [1]" in words(html)  # the claim, with its footnote
    assert "Unsourced" not in html


def test_a_source_cited_on_a_claims_line_supports_the_claim_as_it_reads():
    """Issue 50: the footnote quoted the raw program line ("1. [fact] … | confidence: 60% | …")."""
    cited = source(CITED, "The kettle is accurate | confidence: 60%")
    card = Card.from_result(result("p1", "Panelist A", CITED, [cited], 1))
    notes = words(fragment("round.html#card", card=card).split('class="footnotes"', 1)[1].split("</ol>", 1)[0])
    assert "supports “The kettle is accurate”" in notes
    assert "confidence: 60%" not in notes
    assert "[inference]" not in notes


def test_a_voice_that_could_search_and_cites_nothing_is_shown_as_unsourced():
    card = Card.from_result(result("p2", "Panelist B", PLAIN, searches=2))
    assert "Unsourced: it searched the web but cites no source for what it says." in words(
        fragment("round.html#card", card=card)
    )
    quiet = Card.from_result(result("p2", "Panelist B", PLAIN))
    quiet.search = True
    assert "Unsourced: cites no source" in words(fragment("round.html#card", card=quiet))
    never = Card.from_result(result("p2", "Panelist B", PLAIN))  # no search in this run: nothing to say
    assert "nsourced" not in fragment("round.html#card", card=never)


def test_a_page_address_that_is_no_web_link_is_never_a_link():
    text = "It holds."
    card = Card.from_result(result("p1", "Panelist A", text, [Source(url="javascript:alert(1)", title="Bad")]))
    html = fragment("round.html#card", card=card)
    assert "javascript:" not in html
    assert "Bad" in html


@pytest.fixture
def sink(alice, offline_panel, make_question):
    question = make_question(alice, offline_panel, status="running", lease_owner="test")
    return Tee(Recorder(question.pk, {}), LiveSink(question.pk, Totals()))


async def test_footnotes_reach_the_card_as_they_stream_and_stay_when_it_finishes(sink):
    live = sink.sinks[1]
    await live.layer.group_add(group_name(live.question_id), "viewer.reading")  # the sink renders for someone only
    sent = []

    async def record(parts, final=False):
        sent.extend(part["html"] for part in parts)

    live._broadcast = record  # what viewers would get, in order (the socket path is tested in test_live)
    await sink.emit(RoundStarted(0, "answer", "Round 0", ("p1",), ("Panelist A",)))
    await sink.emit(ContributionStarted(0, "p1", "Panelist A", "answer", search=True))
    await sink.emit(ContributionChunk(0, "p1", CITED[:36]))
    await sink.emit(ContributionCited(0, "p1", (source(CITED, "Water boils at 100 °C"),)))
    await live.flush()
    streamed = next(html for html in sent if 'id="v0-p1-sources"' in html and "Boiling point" in html)
    assert '<li id="v0-p1-fn-1" value="1">' in streamed
    await sink.emit(ContributionFinished(result("p1", "Panelist A", CITED, [source(CITED, "Water boils")], 1)))
    await live.flush()
    final = [html for html in sent if 'id="v0-p1"' in html][-1]
    assert "Boiling point" in final
    assert "status-done" in final
    await live.layer.group_discard(group_name(live.question_id), "viewer.reading")


@pytest.fixture
def sourced(alice, offline_panel, make_question):
    """A finished question: A searched and cites a page, B searched and cites nothing."""
    roster = [
        {"seat": "p1", "label": "Panelist A", "name": "Alpha", "search": True},
        {"seat": "p2", "label": "Panelist B", "name": "Beta", "search": True},
    ]
    voices = [
        {"seat": e["seat"], "label": e["label"], "method": "none", "status": "active", "search": True} for e in roster
    ]
    question = make_question(
        alice, offline_panel, status="done", verdict="100 °C.", roster=roster, panel_run={"voices": voices}
    )
    answers = [
        result("p1", "Panelist A", CITED, [source(CITED, "Water boils at 100 °C")], 1),
        result("p2", "Panelist B", PLAIN, searches=1),
    ]
    round_ = Round.objects.create(question=question, index=0, kind="answer", title="Round 0", status="done")
    entries = []
    for answer in answers:
        Contribution.objects.create(round=round_, **Contribution.fields_of(answer))
        notes = tuple(n.as_dict() for n in sourcing.footnotes(answer.sources, answer.text))
        entries.append(
            ledgers.Entry(0, answer.label, "answer", answer.ledger, footnotes=notes, searches=answer.searches)
        )
    question.ledger = ledgers.Ledger(entries).as_dict()
    question.save()
    return question


def test_the_finished_page_shows_footnotes_unsourced_voices_and_each_claims_sources(client, alice, sourced):
    page = page_of(client, alice, sourced)
    assert 'id="v0-p1-fn-1"' in page
    assert "Unsourced: it searched the web but cites no source" in words(page)
    a1 = row(page, "A1")
    assert "sourced" in words(a1)
    assert f'<a href="{BOILING}"' in a1
    assert "unsourced" in words(row(page, "A2"))
    assert "unsourced" in words(row(page, "B1"))
    assert "1 of 3 sourced" in words(page)
    voices = words(page.split('<ul class="voices">', 1)[1].split("</ul>", 1)[0])
    assert re.fullmatch(r"Panelist A searched the web 1× Panelist B searched the web 1×", voices), voices


def test_the_exports_give_each_voices_sources_and_each_claims_and_say_who_is_unsourced(client, alice, sourced):
    client.force_login(alice)
    markdown = client.get(f"/q/{sourced.pk}/export.md").content.decode()
    assert f"**Sources:**\n\n1. [Boiling point](<{BOILING}>) — “water boils at 100 degrees”" in markdown
    assert "*Unsourced: it cites no source for what it says.*" in markdown
    assert "*answer · done · 0 in + 0 out tokens · $0.000000 · 1 web search*" in markdown
    header = next(line for line in markdown.splitlines() if line.startswith("| Claim |"))
    assert "| Falsified if | Sources |" in header
    a1 = next(line for line in markdown.splitlines() if line.startswith("| A1 |"))
    assert f"[1] [Boiling point](<{BOILING}>)" in a1
    assert "| unsourced |" in next(line for line in markdown.splitlines() if line.startswith("| B1 |"))
    exported = client.get(f"/q/{sourced.pk}/export.json").json()
    a, b = exported["rounds"][0]["contributions"]
    assert [note["url"] for note in a["sources"]] == [BOILING]
    assert (a["unsourced"], b["unsourced"], b["sources"], b["searches"]) == (False, True, [], 1)
