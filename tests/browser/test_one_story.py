"""A finished debate tells one story in a real browser, on a laptop and on a phone: a 2–1 split and a
unanimous panel (tests/viewer/story.py: differently worded answers, on_dissent), watched live to the end.
Screenshots go to /tmp/shots (story-*.png) for a person to look at."""

import re

import pytest

from tests.browser.test_chat_habits import copied
from tests.browser.test_elsewhere import NO_SIDEWAYS_SCROLL, SHOTS, VIEWPORTS
from tests.browser.test_live_viewer import ask, until, wait_for_the_end
from tests.fakes.provider_server import Script
from tests.viewer import story

pytestmark = pytest.mark.browser
PROGRAM_LINES = re.compile(r"(?m)^\W*(?:VERDICT|CONFIDENCE|STANCES|ANSWER|CLAIMS|ON CLAIMS|CHANGE)\s*:")


def ask_on_dissent(page) -> None:
    page.goto("/")
    page.select_option("#id_debate", "on_dissent")
    ask(page, story.QUESTION)


def shoot(page, name: str) -> None:
    """The finished page whole, and its verdict and a debate card opened, at both sizes."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    for size, viewport in VIEWPORTS.items():
        page.set_viewport_size(viewport)
        page.wait_for_timeout(150)
        assert page.evaluate(NO_SIDEWAYS_SCROLL), size
        page.screenshot(path=str(SHOTS / f"story-{name}-{size}.png"), full_page=True)
        page.locator("#verdict").screenshot(path=str(SHOTS / f"story-{name}-verdict-{size}.png"))
        page.locator("#panel-run").screenshot(path=str(SHOTS / f"story-{name}-panel-{size}.png"))
        opened = page.locator("#rounds details.fold[open]")
        if opened.count():
            opened.first.screenshot(path=str(SHOTS / f"story-{name}-card-{size}.png"))
    page.set_viewport_size(VIEWPORTS["laptop"])


def test_a_2_1_debate_tells_one_story_live_and_at_the_end(provider_server, signed_in):
    story.script(provider_server, split=True, tokens_per_second=40)
    page = signed_in("alice")
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    ask_on_dissent(page)
    # While a voice streams, its figures say what they count as the finished card's will.
    until(page, "() => /~\\d+ in \\+ ~\\d+ out tokens/.test(document.querySelector('[data-estimate]')?.textContent)")
    wait_for_the_end(page)
    until(page, "() => document.title.startsWith('✓ Verdict — Should we split')")
    assert page.inner_text("[data-toast-text]").startswith("Verdict: Keep the modular monolith this year")

    # The verdict's support is the panel's agreement and the moderator's confidence; the make-up apart.
    chip = page.locator("#verdict .chip.support")
    assert chip.inner_text() == "majority 2/3 · confidence 0.60"
    assert "support-mixed" in chip.get_attribute("class")
    assert "evidence" not in page.inner_text("#verdict")
    assert "convergence would be strong evidence" in page.inner_text("#panel-run .evidence")
    assert "convergence is" not in page.inner_text("main")
    check = page.inner_text(".debate-check")
    assert check.endswith("No claim was shared: all 6 were debated.")
    assert "only" not in check

    # Each voice's stance and its reason come from the agreement, as the judge and the moderator read it.
    stances = page.inner_text("#ledger .stance-list")
    assert "agrees in part" not in stances
    assert stances.count("✓ agrees") == 2
    assert stances.count("✗ disagrees") == 1
    assert "the moderator reads it otherwise" not in stances
    alpha = page.locator("#ledger .stance", has_text="Alpha house")
    assert "answers “No — keep the monolith, and add the job worker first”" in alpha.inner_text()

    # A closing block is shown as what was read of it; a copy never carries the lines a program reads.
    card = page.locator(".kind-debate details.fold", has_text="Alpha house")
    card.locator("summary").click()
    assert "changed its mind partly" in card.locator("summary").inner_text()
    closing = card.locator(".card-body .closing")
    assert closing.is_visible()
    assert closing.inner_text().startswith("Answer: No — keep the monolith, and add the job worker first")
    assert not PROGRAM_LINES.search(card.locator(".card-body").inner_text())
    assert re.fullmatch(r"\d+ in \+ \d+ out tokens · \$[\d.]+ · [\d.]+ s", card.locator(".meta").inner_text())
    text = copied(page, f"#{card.locator('.card').get_attribute('id')} button.copy")
    assert "**On claims:**" in text
    assert not PROGRAM_LINES.search(text)
    synthesis = copied(page, "#outcome button.copy")
    assert synthesis.startswith("## Consensus")
    assert not PROGRAM_LINES.search(synthesis)
    assert "(Gamma house) would extract billing now" in synthesis  # labels named, as the page shows them
    assert "(Gamma house) would extract billing now" in page.inner_text("#outcome")
    assert re.search(r"\d+ calls · \d+ tokens in \+ out · \$", page.inner_text("#verdict .summary"))
    shoot(page, "split")


def test_a_unanimous_debate_skipped_by_on_dissent_says_so_and_lists_no_claims(provider_server, signed_in):
    story.script(provider_server, split=False)
    page = signed_in("alice")
    ask_on_dissent(page)
    wait_for_the_end(page)
    chip = page.locator("#verdict .chip.support")
    assert chip.inner_text() == "unanimous 3/3 · confidence 0.85"
    assert "support-strong" in chip.get_attribute("class")
    check = page.inner_text(".debate-check")
    assert check.startswith("Debate skipped: every voice that answered gives one answer (3/3")
    assert "contested" not in check
    assert page.inner_text("#ledger .stance-list").count("✓ agrees") == 3
    assert page.locator(".kind-debate").count() == 0
    page.locator(".kind-answer details.fold").first.locator("summary").click()
    assert page.locator(".kind-answer .card-body .closing").first.inner_text().startswith("Answer: ")
    shoot(page, "unanimous")


def test_a_synthesis_without_a_verdict_says_no_verdict_in_the_tab_and_the_toast(provider_server, signed_in):
    story.script(provider_server, split=True)
    provider_server.script("model-moderator", Script(answer="## Consensus\nThe panel split on billing.\n"))
    page = signed_in("alice")
    ask_on_dissent(page)
    wait_for_the_end(page)
    until(page, "() => document.title.startsWith('✓ No verdict — Should we split')")
    assert page.inner_text("[data-toast-text]") == "No verdict: the moderator wrote none. Read its synthesis."
    assert page.inner_text("#verdict-title") == "NO VERDICT"  # a kicker, in capitals by its style
    assert page.locator("#verdict .chip.support").count() == 0
