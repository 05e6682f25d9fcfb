"""Numbers checked between rounds in a real browser: asked on the page, the voices' false
computations are marked ✗ in the ledger while the moderator is still writing, a verdict resting on
one is flagged under it, and the page reads on a laptop and on a phone. Screenshots go to
/tmp/shots (checks-*.png) for a person to look at."""

import re

import pytest

from tests.browser.test_elsewhere import NO_SIDEWAYS_SCROLL, SHOTS, VIEWPORTS
from tests.browser.test_live_viewer import ask, until, wait_for_the_end
from tests.engine.test_checks import CONVERSION, RIGHT, WRONG, voice
from tests.fakes.provider_server import FakeProviderServer, Script

pytestmark = pytest.mark.browser
RESTS_ON_A_REFUTED_CLAIM = (
    "## Consensus\nCache the pages: 12 % of 250 is 40 cold pages.\n\n## Disagreements\nNone lasting.\n\n"
    "## Verdict\nCache the pages.\n\nVERDICT: Cache the pages.\nCONFIDENCE: 0.8\n"
)


def script(server: FakeProviderServer) -> None:
    server.reset()
    for family, answer in zip(("alpha", "beta", "gamma"), (WRONG, CONVERSION, RIGHT), strict=True):
        server.script(f"model-{family}", voice(answer))
    server.script("model-moderator", Script(answer=RESTS_ON_A_REFUTED_CLAIM, first_token_delay=8))


def test_checked_claims_are_marked_live_and_a_verdict_on_a_refuted_one_is_flagged(provider_server, signed_in):
    script(provider_server)
    page = signed_in("alice")
    page.set_viewport_size(VIEWPORTS["laptop"])
    ask(page, "How much memory do the pages need?")
    # After the blind round, before the moderator's first word: the checks are in the ledger.
    until(page, "() => document.querySelectorAll('#ledger .checked.refuted').length >= 2")
    assert page.locator("#outcome").count() == 0
    listed = page.inner_text("#ledger .check-list")
    assert "2^10 = 1000 does not hold: 2^10 = 1024, not 1000" in listed
    assert "12 % of 250 is 40 does not hold: 12% of 250 = 30, not 40" in listed
    assert "1 day = 84,600 seconds does not hold: 1 day = 86400 seconds, not 84,600 seconds" in listed
    assert "“2^10 = 1024” holds" not in listed  # the list quotes with <q>, not with quote characters
    assert page.locator("#ledger .check.refuted").count() == 3
    assert page.locator(".kind-check .card").count() == 1  # the step's own card, labelled SymPy
    wait_for_the_end(page)

    flag = page.inner_text("#verdict .refuted-support")
    assert "rests on" in flag
    assert "“12 % of 250 is 40”" in flag
    page.click("#ledger details.claims > summary")  # folded to a line once the run is over
    SHOTS.mkdir(parents=True, exist_ok=True)
    for size, viewport in VIEWPORTS.items():
        page.set_viewport_size(viewport)
        page.wait_for_timeout(150)
        assert page.evaluate(NO_SIDEWAYS_SCROLL), size
        page.locator("#ledger").screenshot(path=str(SHOTS / f"checks-ledger-{size}.png"))
        page.locator("#verdict").screenshot(path=str(SHOTS / f"checks-verdict-{size}.png"))
        page.locator(".kind-check").first.screenshot(path=str(SHOTS / f"checks-round-{size}.png"))
    assert page.evaluate("window.__csp") == []


SQUADS_AND_A_FALSE_CALC = (
    "12 engineers in 2 squads is 12 / 2 = 6 engineers per squad, so each squad owns one service.\n\n"
    "ANSWER: Cache the pages\nCLAIMS:\n"
    "1. [fact] Each squad gets 6 engineers | confidence: 90% | falsified if: the headcount is not 12\n"
    "2. [inference] The cache needs 54 vCPUs | confidence: 70% | falsified if: a node has more than 8 cores\n"
    "CALC:\n- 1 | 12 / 2 = 6\n- 2 | 7 * 8 = 54\n"
)
SQUADS_IN_PROSE = (
    "With 12 engineers in 2 squads is 12 / 2 = 6 engineers per squad, the cache is owned.\n\n"
    "ANSWER: Cache the pages\nCLAIMS:\n"
    "1. [fact] Six engineers a squad is enough to run a cache | confidence: 70% | falsified if: on-call load doubles\n"
)


def words(locator) -> str:
    return " ".join(locator.inner_text().split())


def test_the_squads_sentence_gets_no_cross_and_a_false_calc_line_its_computation(provider_server, signed_in):
    provider_server.reset()
    for family, answer in zip(
        ("alpha", "beta", "gamma"), (SQUADS_AND_A_FALSE_CALC, SQUADS_IN_PROSE, RIGHT), strict=True
    ):
        provider_server.script(f"model-{family}", voice(answer))
    provider_server.script("model-moderator", Script(answer=RESTS_ON_A_REFUTED_CLAIM))
    page = signed_in("alice")
    page.set_viewport_size(VIEWPORTS["laptop"])
    question = ask(page, "How many engineers does each squad get?")
    until(page, "() => document.querySelectorAll('#ledger .check-list .check').length >= 3")
    wait_for_the_end(page)

    refuted = page.locator("#ledger .check.refuted")
    assert refuted.count() == 1  # the false CALC line, and nothing read into the squads sentence
    shown = re.search(r"Panelist ([A-C]), \1(2) 7 \* 8 = 54 does not hold: 7 \* 8 = 56, not 54", words(refuted))
    assert shown, words(refuted)  # SymPy's computation, tied to the claim the CALC line names
    author = shown.group(1).lower()
    listed = page.inner_text("#ledger .check-list")
    assert "12 / 2 = 6 holds: 12 / 2 = 6" in listed
    assert "squads is" not in listed
    assert "not 2 squads" not in page.inner_text("main")
    page.click("#ledger details.claims > summary")
    a1, a2 = (page.locator(f"#claim-{author}{n}").inner_text() for n in (1, 2))
    assert "checked ✓" in a1
    assert "✗" not in a1
    assert "checked ✗" in a2
    assert page.locator("#ledger .checked.refuted").count() == 1
    # The exports carry the same checks: the false CALC line's, none read into the squads sentence.
    base = page.url.split("/q/", 1)[0]
    markdown = page.request.get(f"{base}/q/{question}/export.md").text()
    refuted_lines = [line for line in markdown.splitlines() if line.startswith("- ✗ ")]
    assert refuted_lines  # in the list of checks, and in the checks' own round
    assert all("“7 * 8 = 54” does not hold: 7 * 8 = 56, not 54" in line for line in refuted_lines)
    exported = page.request.get(f"{base}/q/{question}/export.json").json()["ledger"]["checks"]
    assert [(c["quote"], c["computation"]) for c in exported if c["holds"] is False] == [
        ("7 * 8 = 54", "7 * 8 = 56, not 54")
    ]
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.locator("#ledger").screenshot(path=str(SHOTS / "checks-calc-ledger-laptop.png"))
    assert page.evaluate("window.__csp") == []
