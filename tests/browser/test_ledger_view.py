"""The claim ledger in a real browser: it appears live while the moderator is still writing, and
the finished page reads on a laptop and on a phone without scrolling sideways."""

import re

import pytest

from tests.browser.test_live_viewer import ask, until, wait_for_the_end
from tests.engine.test_ledger import REPLICAS_A, REPLICAS_B, SHARD_C
from tests.fakes.answers import SYNTHESIS
from tests.fakes.provider_server import FakeProviderServer, Script

pytestmark = pytest.mark.browser
LABEL = re.compile(r"as \*\*Panelist (\w)\*\*")
LAPTOP = {"width": 1400, "height": 900}
PHONE = {"width": 390, "height": 844}
NO_SIDEWAYS_SCROLL = "() => document.documentElement.scrollWidth <= window.innerWidth"


def debating(blind: str, debate: str):
    """A voice: ``blind`` in round 0; in the debate, ``debate`` with {me} and {other} as the labels
    its prompt gives (labels are shuffled per question, so claims are named relative to them)."""

    def respond(request) -> str:
        if "basis of the change" in request.prompt:
            return "BASIS: none"
        if "on your own" in request.prompt:
            return blind
        me = LABEL.search(request.prompt)[1]
        return debate.format(me=me, other=next(x for x in "ABC" if x != me))

    return respond


VOICES = {
    "alpha": debating(
        REPLICAS_A,
        "ON CLAIMS:\n- {other}2 refute | growth is 15%/yr per the capacity report\n"
        "- {me}2 correct | replicas take reads only\nCHANGE: partial | {me}2 overstated the effect\n"
        "ANSWER: Add read replicas",
    ),
    "beta": debating(
        REPLICAS_B,
        "ON CLAIMS:\n- {other}1 confirm | matches our logs\nCHANGE: none | no new evidence\nANSWER: Add read replicas",
    ),
    "gamma": debating(
        SHARD_C, "ON CLAIMS:\n- {other}1 confirm | the 90% figure holds\nCHANGE: total\nANSWER: Add read replicas"
    ),
}


def script(server: FakeProviderServer, moderator_delay: float) -> None:
    server.reset()
    for family, voice in VOICES.items():
        server.script(f"model-{family}", voice)
    server.script("model-moderator", Script(answer=SYNTHESIS, first_token_delay=moderator_delay))


def test_the_ledger_appears_live_then_reads_on_a_laptop_and_on_a_phone(provider_server, signed_in):
    script(provider_server, moderator_delay=15)
    page = signed_in("alice")
    page.set_viewport_size(LAPTOP)
    ask(page)
    # After the debate round, while the moderator has not written a word: stances, matrix, markers.
    until(page, "() => document.querySelectorAll('#ledger .cell.end-changed').length > 0")
    assert page.locator("#outcome").count() == 0  # the run is not over
    assert page.locator("#ledger .stance").count() == 3
    assert page.locator("#ledger tr.claim").count() == 6
    assert "changed its position entirely without a reason" in page.inner_text("#ledger .signals")
    assert page.locator(".kind-debate .changed.unexplained").inner_text().startswith("↻ Changed its mind — entirely")
    wait_for_the_end(page)

    stances = page.inner_text("#ledger .stance-list")
    assert "Gamma house" in stances  # the revealed names, once the run is over
    assert "agrees in part" not in stances  # a change in part is on the card; the judge placed it fully
    assert page.locator("#ledger .cell.end-attacked").count() == 1
    assert "Changed its mind — partly" in page.text_content(".kind-debate")  # in a folded card, a click away
    assert page.locator("#ledger .matrix").is_hidden()  # folded to a line once the run is over …
    assert re.search(r"6: \d standing", page.inner_text("#ledger details.claims > summary"))
    page.click("#ledger details.claims > summary")  # … a click away
    assert page.evaluate(NO_SIDEWAYS_SCROLL)
    assert page.locator("#ledger thead th >> nth=1").is_visible()  # a real table on a laptop
    assert page.locator("#ledger .cell-who").first.is_hidden()  # the column header names the voice

    page.set_viewport_size(PHONE)
    assert page.evaluate(NO_SIDEWAYS_SCROLL)
    table = page.locator("#ledger table").bounding_box()
    assert table is not None
    assert table["x"] + table["width"] <= PHONE["width"]
    chip = page.locator("#ledger tr.claim >> nth=0").locator("td.cell >> nth=0")
    assert chip.locator(".cell-who").is_visible()  # each chip names its voice: no header in view
    assert page.evaluate("window.__csp") == []


def test_a_skipped_debate_says_what_it_saved(provider_server, signed_in):
    script(provider_server, moderator_delay=0)
    provider_server.script("model-gamma", REPLICAS_A)  # the whole panel agrees in the blind round
    page = signed_in("alice")
    page.set_viewport_size(PHONE)
    page.goto("/")
    page.select_option("#id_debate", "on_dissent")
    ask(page)
    wait_for_the_end(page)
    notice = page.inner_text(".debate-check")
    skipped = r"Debate skipped: every voice that answered gives one answer \(3/3, .*\)\. Saved \d+ calls"
    assert re.match(skipped + r" \(~\d+ tokens, ~\$[\d.]+\)", notice)
    assert page.locator(".kind-debate").count() == 0
    assert page.locator("#ledger tr.claim").count() == 6
    assert page.evaluate(NO_SIDEWAYS_SCROLL)
