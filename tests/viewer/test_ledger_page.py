"""The claim ledger on the question page: where each voice stands, what it did with each claim,
who changed its mind (and why), and what debate = on_dissent decided.

The ledger is built by the engine's own reader from closing blocks shaped as real models write
them (tests/engine/test_ledger.py), stored as the recorder stores it, and rendered by the page.
"""

import html
import re

import pytest

from debates.engine import ledger as ledgers
from debates.engine.reading import closing
from debates.live.sink import fragment
from debates.live.state import LiveState
from debates.models import Contribution, Round
from tests.engine.test_ledger import REPLICAS_A, REPLICAS_B, SHARD_C

BLIND = {"Panelist A": REPLICAS_A, "Panelist B": REPLICAS_B, "Panelist C": SHARD_C}
DEBATE = {
    "Panelist A": (
        "I was partly wrong.\n\nON CLAIMS:\n- C2 refute | growth is 15%/yr per the capacity report\n"
        "- A2 correct | replicas take reads, not writes: the load falls by the read share only\n"
        "- B1 confirm | matches our own measurement\nCHANGE: partial | A2 overstated the effect\n"
        "ANSWER: Add read replicas"
    ),
    "Panelist B": (
        "ON CLAIMS:\n- B9 refute | a claim nobody made\n- C2 refute | the logs show 15% growth\n"
        "CHANGE: none | no new evidence\nANSWER: Add read replicas"
    ),
    "Panelist C": "ON CLAIMS:\n- A1 confirm | the 90% figure holds\nCHANGE: total\nANSWER: Add read replicas",
}
SEATS = {"Panelist A": "p1", "Panelist B": "p2", "Panelist C": "p3"}
NAMES = {"Panelist A": "Alpha house", "Panelist B": "Beta house", "Panelist C": "Gamma house"}
SKIPPED = {
    "mode": "on_dissent",
    "skipped": True,
    "reason": "the panel agreed (3/3 on the same answer, threshold 3/4)",
    "agreement": "3/3",
    "threshold": "3/4",
    "contested": ["A2", "B2"],
    "shared": ["A1", "B1", "C1"],
    "calls_saved": 6,
    "tokens_saved": 4210,
    "cost_saved": "0.006315",
}
SPLIT = SKIPPED | {
    "skipped": False,
    "reason": "the panel split (2/3 on the largest answer, threshold 3/4)",
    "contested": ["A2", "B2", "C2"],
    "calls_saved": 0,
    "tokens_saved": 0,
    "cost_saved": "0",
}


def store(question, rounds: list[tuple[str, dict[str, str]]]) -> dict:
    """Rounds of contributions as the recorder stores them, and the ledger the engine builds of them."""
    entries = []
    for index, (kind, texts) in enumerate(rounds):
        row = Round.objects.create(question=question, index=index, kind=kind, title=f"Round {index}", status="done")
        for label, text in texts.items():
            record = closing.read(kind, text, label)
            Contribution.objects.create(
                round=row, seat=SEATS[label], label=label, kind=kind, status="done", text=text, ledger=record
            )
            entries.append(ledgers.Entry(index, label, kind, record))
    question.ledger = ledgers.Ledger(entries).as_dict()
    question.save()
    return question.ledger


@pytest.fixture
def debated(alice, offline_panel, make_question):
    roster = [
        {"seat": seat, "label": label, "name": NAMES[label], "model": f"model-{seat}", "family": seat}
        for label, seat in SEATS.items()
    ]
    question = make_question(alice, offline_panel, status="done", verdict="Add read replicas.", roster=roster)
    store(question, [("answer", BLIND), ("debate", DEBATE)])
    return question


def page_of(client, user, question) -> str:
    client.force_login(user)
    return client.get(question.get_absolute_url()).content.decode()


def row(page: str, claim: str) -> str:
    """The HTML of one claim's row of the matrix."""
    found = re.search(rf'<tr class="claim [^"]*" id="claim-{claim.lower()}">(.*?)</tr>', page, re.S)
    assert found, f"no row for {claim}"
    return found[1]


def words(markup: str) -> str:
    """The text a reader sees, spaces squeezed."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", markup)).split())


def test_each_voice_stands_against_the_emerging_answer_with_its_reason(client, alice, debated):
    page = page_of(client, alice, debated)
    assert "Where the panel stands" in page
    assert "Emerging answer</span> Add read replicas" in page
    stances = words(page.split('class="stance-list"', 1)[1].split("</ul>", 1)[0])
    # A changed its mind in part: its card says so; its stance is where its answer stands (one source).
    assert "Panelist A Alpha house ✓ agrees answers “Add read replicas”" in stances
    assert "Panelist C Gamma house ✓ agrees answers “Add read replicas”" in stances


def test_the_matrix_shows_each_claim_and_every_voices_word_on_it_from_round_zero_to_the_end(client, alice, debated):
    page = page_of(client, alice, debated)
    assert page.index('id="ledger"') < page.index('id="rounds"')  # read right after the panel, before the rounds
    assert re.findall(r'id="claim-(\w+)"', page) == ["a1", "a2", "b1", "b2", "c1", "c2"]
    c2 = row(page, "C2")
    assert "withdrawn" in c2
    assert "75%" in c2
    assert "Falsified if:</strong> growth stays under 20%" in c2
    cells = [words(cell) for cell in re.findall(r"<td .*?</td>", c2, re.S)]
    assert cells == [
        "A · → ✗ nothing said , then → attacked",  # the symbols, then the words: never colour alone
        "B · → ✗ nothing said , then → attacked",
        "C ● → ↻ claimed , then → changed",
    ]
    assert "Panelist A on C2: round 0 nothing said, at the end attacked — growth is 15%/yr" in c2  # the tooltip
    a2 = row(page, "A2")
    assert "conceded" in words(a2)
    assert "B · nothing said" in words(a2)
    assert "Panelist A conceded: replicas take reads, not writes" in a2  # what was said goes with its claim
    assert "What the marks mean" in page


def test_the_sycophancy_signal_and_unmatched_remarks_are_stated_plainly(client, alice, debated):
    page = page_of(client, alice, debated)
    signals = words(page.split('class="signals"', 1)[1].split("</ul>", 1)[0])
    # "sycophancy" is a term whose meaning opens on a tap: a tag of its own in the text.
    assert "Panelist C: sycophancy : changed its position entirely without a reason of substance" in signals
    unmatched = words(page.split('class="unmatched"', 1)[1].split("</details>", 1)[0])
    assert "1 remark on claims not counted" in unmatched
    assert "Panelist B on B9 (refute): a claim nobody made — no claim B9 in the ledger" in unmatched


def test_a_card_that_changed_its_mind_says_so_with_its_reason_or_a_warning(client, alice, debated):
    page = page_of(client, alice, debated)
    changed = [words(p) for p in re.findall(r'<p class="changed[^"]*".*?</p>', page, re.S)]
    assert changed == [
        "↻ Changed its mind — partly: A2 overstated the effect",
        "↻ Changed its mind — entirely: no reason given",
    ]
    assert '<p class="changed unexplained degree-total">' in page  # the warning style
    assert page.count("Changed its mind") == 2  # B said "none": no marker


def test_voices_whose_claims_could_not_be_read_are_named(alice, offline_panel, make_question):
    question = make_question(alice, offline_panel, status="done")
    ledger = store(question, [("answer", {"Panelist A": REPLICAS_A, "Panelist B": "Replicas.\n\nCLAIMS:\n- ???\n"})])
    drawn = fragment("debate.html#ledger", debate=LiveState(ledger=ledger))
    assert "Panelist B: its claims could not be read." in drawn
    assert 'id="claim-b1"' not in drawn


def test_model_text_in_the_ledger_is_escaped(alice, offline_panel, make_question):
    question = make_question(alice, offline_panel, status="done")
    hostile = "ANSWER: <b>replicas</b>\nCLAIMS:\n1. [fact] Reads <script>alert(1)</script> dominate | confidence: 80%"
    ledger = store(question, [("answer", {"Panelist A": hostile, "Panelist B": REPLICAS_B, "Panelist C": hostile})])
    drawn = fragment("debate.html#ledger", debate=LiveState(ledger=ledger))
    assert "<script>" not in drawn
    assert "Reads &lt;script&gt;alert(1)&lt;/script&gt; dominate" in drawn
    assert "Emerging answer</span> &lt;b&gt;replicas&lt;/b&gt;" in drawn


def test_a_skipped_debate_says_why_and_what_it_saved(client, alice, debated):
    debated.panel_run = {"voices": [{"label": "Panelist A", "status": "active"}], "debate": SKIPPED}
    debated.save()
    notice = re.search(
        r'<p class="notice debate-check skipped" role="status">(.*?)</p>', page_of(client, alice, debated), re.S
    )
    assert words(notice[1]) == (
        "Debate skipped: the panel agreed (3/3 on the same answer, threshold 3/4). "
        "Saved 6 calls (~4210 tokens, ~$0.0063) against always debating."
    )


def test_a_split_panel_debates_only_the_claims_not_shared(client, alice, debated):
    debated.panel_run = {"voices": [{"label": "Panelist A", "status": "active"}], "debate": SPLIT}
    debated.save()
    page = page_of(client, alice, debated)
    notice = words(re.search(r'<p class="notice debate-check">(.*?)</p>', page, re.S)[1])
    assert "the panel split (2/3 on the largest answer, threshold 3/4)." in notice
    assert "Debated only the claims not shared: A2, B2, C2 (the panel shared A1, B1, C1)." in notice
    assert "contested" not in notice  # the ledger's word beside it: a claim attacked and not conceded
    assert "Debate skipped" not in page


def test_a_question_without_a_ledger_shows_no_empty_headings(client, alice, offline_panel, make_question):
    question = make_question(alice, offline_panel, status="done", panel_run={"voices": [{"label": "Panelist A"}]})
    page = page_of(client, alice, question)
    section = page.split('<section id="ledger" class="ledger">', 1)[1].split("</section>", 1)[0]
    assert section.strip() == ""
    for heading in ("Where the panel stands", "Claims, and what", "Changed its mind", "Debate skipped", "Debated only"):
        assert heading not in page


def test_claims_are_listed_in_the_order_of_the_columns_whoever_answered_first(alice, offline_panel, make_question):
    question = make_question(alice, offline_panel, status="done")
    ledger = store(question, [("answer", dict(reversed(BLIND.items())))])  # C answered first
    assert [c["id"] for c in ledger["claims"]][:2] == ["C1", "C2"]
    drawn = fragment("debate.html#ledger", debate=LiveState(ledger=ledger))
    assert re.findall(r'id="claim-(\w+)"', drawn) == ["a1", "a2", "b1", "b2", "c1", "c2"]
