"""The end of a run in a real browser: the verdict pinned on top and announced, the rounds folded to
a line per voice, one voice at a time, one card order, and a cancel that keeps what was written —
on a laptop and on a phone, never scrolling sideways."""

import re
from pathlib import Path

import pytest

from tests.browser.test_elsewhere import SHOTS
from tests.browser.test_ledger_view import LAPTOP, NO_SIDEWAYS_SCROLL, PHONE, VOICES
from tests.browser.test_live_viewer import QUESTION, until, wait_for_the_end
from tests.fakes.answers import SYNTHESIS
from tests.fakes.provider_server import FakeProviderServer, Script

pytestmark = pytest.mark.browser
SIZES = {"laptop": LAPTOP, "phone": PHONE}
VISIBLE_VOICES = """() => [...document.querySelectorAll('#rounds [data-voice]')]
    .filter(el => el.checkVisibility()).map(el => el.dataset.voice)"""


def script(server: FakeProviderServer, tokens_per_second: float | None = None, moderator_delay: float = 0) -> None:
    """The ledger's three debating voices (so each has a stance), at the pace asked."""
    server.reset()
    for family, voice in VOICES.items():
        server.script(f"model-{family}", Script(answer=voice, tokens_per_second=tokens_per_second))
    server.script("model-moderator", Script(answer=SYNTHESIS, first_token_delay=moderator_delay))


def ask(page) -> int:
    """Ask the default panel (teorema: no triage to skip) and land on the question's page."""
    page.goto("/")
    page.fill("#id_text", QUESTION)
    page.click("button.primary")
    page.wait_for_url(re.compile(r"/q/\d+/$"))
    return int(page.url.rstrip("/").rsplit("/", 1)[1])


def labels(page, selector: str) -> list[str]:
    return page.eval_on_selector_all(selector, "els => els.map(el => el.textContent.trim())")


@pytest.mark.parametrize("size", SIZES)
def test_the_end_of_a_live_run_pins_the_verdict_announces_it_and_folds_the_rounds(provider_server, signed_in, size):
    script(provider_server, tokens_per_second=60, moderator_delay=2)
    page = signed_in("alice")
    page.set_viewport_size(SIZES[size])
    ask(page)
    until(page, "() => document.querySelectorAll('.kind-answer .card').length >= 3")
    live_order = labels(page, ".kind-answer .card .label")[:3]
    assert live_order == ["Panelist A", "Panelist B", "Panelist C"]  # label order while it streams …
    assert page.locator("#announce").inner_text() == ""
    wait_for_the_end(page)

    until(page, "() => document.title.startsWith('✓ Verdict — Should we add read replicas')")
    assert page.locator("#announce").inner_text() == "Verdict: Use read replicas."  # read by a screen reader
    assert page.locator("[data-toast]").is_visible()
    assert "Use read replicas." in page.inner_text("[data-toast]")
    verdict, panel = page.locator("#verdict").bounding_box(), page.locator("#panel-run").bounding_box()
    assert verdict is not None
    assert panel is not None
    assert verdict["y"] < panel["y"]  # pinned above the panel, the ledger and the rounds
    in_view = (
        "() => { const top = document.getElementById('verdict').getBoundingClientRect().top; "
        "return top > -2 && top < window.innerHeight / 2; }"
    )
    until(page, in_view)  # the reader is taken to it

    folds = page.locator("#rounds details.fold")
    # 3 answers and the judge's grouping of them, 3 debate contributions and one voice asked for the
    # basis of its total change (the debate answers are one by their words: no judge), the synthesis.
    assert folds.count() == 9
    assert page.locator("#rounds details.fold[open]").count() == 0
    assert labels(page, ".kind-answer .fold-line .label") == [*live_order, "Judge"]  # … and once it is over
    stances = labels(page, ".kind-debate .fold-line .stance-word")  # labels are shuffled: who is who varies
    # The voice that changed entirely and, asked for its basis, gave none weighs nothing.
    assert sorted(stances) == ["↻ changed without a reason (weighs nothing)", "✓ agrees", "✓ agrees"]
    first = page.locator(".kind-answer details.fold").first
    assert first.locator(".card").is_hidden()
    first.locator("summary").click()
    assert first.locator(".card-body").is_visible()  # the whole card, a click away
    page.click("[data-toast-close]")
    assert page.locator("[data-toast]").is_hidden()
    assert page.evaluate(NO_SIDEWAYS_SCROLL)

    page.reload()  # the page opened after the run: the same verdict on top, the same folds
    assert page.title().startswith("✓ Verdict — ")
    assert page.locator("#rounds details.fold").count() == 9
    assert labels(page, ".kind-answer .fold-line .label") == [*live_order, "Judge"]
    assert page.evaluate(NO_SIDEWAYS_SCROLL)
    assert page.evaluate("window.__csp") == []


def test_one_voice_at_a_time_live_and_after_the_end(provider_server, signed_in):
    script(provider_server, tokens_per_second=15, moderator_delay=2)
    page = signed_in("alice")
    page.set_viewport_size(PHONE)
    ask(page)
    page.click("#views [data-view='panelist-b']")
    assert page.locator("#views [data-view='panelist-b']").get_attribute("aria-selected") == "true"
    # New contributions land in the view chosen: only B's answer, then B's debate contribution.
    until(page, "() => document.querySelectorAll('.kind-debate .card').length === 3")
    until(page, f"() => ({VISIBLE_VOICES})().join() === 'panelist-b,panelist-b'")
    assert page.evaluate(NO_SIDEWAYS_SCROLL)
    wait_for_the_end(page)
    until(page, "() => document.title.startsWith('✓ Verdict')")
    assert set(page.evaluate(VISIBLE_VOICES)) == {"panelist-b"}  # the choice outlives the final swap
    b_folds = "#rounds details.fold[data-voice='panelist-b']"
    assert page.locator(b_folds).count() >= 2  # B's answer, its debate and, if it was asked, its basis
    assert page.locator(f"{b_folds}[open]").count() == page.locator(b_folds).count()  # B's, opened to read
    assert page.locator(".kind-synthesis").is_hidden()
    page.click("#views [data-view='']")
    assert len(page.evaluate(VISIBLE_VOICES)) == 9
    assert page.locator("#rounds details.fold[open]").count() == 0
    assert page.evaluate(NO_SIDEWAYS_SCROLL)


def test_a_cancelled_run_keeps_its_cards_live_and_after_a_reload(provider_server, signed_in):
    provider_server.reset()
    for family in ("alpha", "beta", "gamma"):
        provider_server.script(
            f"model-{family}", Script(answer=f"{family} says: " + "slow words " * 300, tokens_per_second=8)
        )
    watcher = signed_in("alice")
    watcher.set_viewport_size(PHONE)
    question = ask(watcher)
    until(watcher, "() => document.querySelectorAll('.kind-answer .card.status-streaming').length === 3")
    asker = signed_in("alice")
    asker.goto(f"/q/{question}/")
    asked = []
    asker.once("dialog", lambda dialog: (asked.append(dialog.message), dialog.dismiss()))
    asker.click("button:has-text('Cancel debate')")
    assert asked == ["Cancel this debate? Every voice stops now; what they wrote so far is kept."]
    # Dismissed: the form was never sent (a click waits for the navigation it starts), the run goes on.
    assert asker.url.endswith(f"/q/{question}/")
    assert asker.locator("button:has-text('Cancel debate')").is_enabled()
    assert watcher.locator(".kind-answer .card.status-streaming").count() == 3
    asker.once("dialog", lambda dialog: dialog.accept())
    asker.click("button:has-text('Cancel debate')")

    # The watcher never reloads: the last fragment keeps every card, marked cancelled, with its text.
    watcher.wait_for_selector("#verdict.status-cancelled", timeout=60_000)
    until(watcher, "() => document.title.startsWith('Cancelled — ')")
    cut = watcher.locator(".kind-answer details.fold.status-cancelled")
    assert cut.count() == 3
    assert labels(watcher, ".kind-answer .fold-line .badge") == ["cancelled"] * 3
    excerpts = labels(watcher, ".kind-answer .fold-line .excerpt")
    assert all(re.match(r"(alpha|beta|gamma) says: slow words", text) for text in excerpts)
    assert watcher.evaluate(NO_SIDEWAYS_SCROLL)
    assert watcher.locator("#follow-up").count() == 0  # no verdict to follow up (docs/viewer.md), live or not
    watcher.reload()
    assert watcher.locator(".kind-answer details.fold.status-cancelled").count() == 3
    assert labels(watcher, ".kind-answer .fold-line .excerpt") == excerpts
    assert watcher.locator("#follow-up").count() == 0


@pytest.mark.parametrize("size", SIZES)
def test_a_failed_run_says_why_once_and_offers_the_retry_live_which_runs(provider_server, signed_in, size):
    script(provider_server, tokens_per_second=30)
    # Alpha drops its connection a moment in: the run fails under the reader's eyes, not before the page opens.
    failing = Script(answer=VOICES["alpha"], fault="drop", after_chunks=3, first_token_delay=2)
    provider_server.script("model-alpha", failing)
    page = signed_in("alice")
    page.set_viewport_size(SIZES[size])
    ask(page)
    until(page, "() => document.querySelectorAll('.kind-answer .card').length >= 3")
    page.wait_for_selector("#verdict.status-failed", timeout=60_000)
    # Without a reload, the asker is offered what to do; the error is said once, in the summary.
    page.wait_for_selector("#recover button.primary", timeout=30_000)
    retry = page.inner_text("#recover button.primary")
    assert retry.startswith("Retry Panelist ")
    assert page.locator("#recover button:has-text('Go on without')").count() == 1
    assert page.locator(".error-box").count() == 1
    assert "No synthesis" not in page.inner_text("main")
    assert page.inner_text("[data-toast]").strip().startswith("The debate failed: read why")
    assert page.evaluate(NO_SIDEWAYS_SCROLL)
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.locator("#verdict").screenshot(path=str(SHOTS / f"failed-run-{size}.png"))

    script(provider_server, tokens_per_second=60)
    page.click("#recover button.primary")
    wait_for_the_end(page)
    page.wait_for_selector("#verdict.status-done", timeout=60_000)
    assert "Use read replicas." in page.inner_text("#verdict")
    assert page.locator("#recover").count() == 0
    # The failed try stays in the blind round, named as what it was, beside the answer that replaced it.
    assert labels(page, ".kind-answer .fold-line .badge").count("failed, then retried") == 1
    page.locator("#rounds").screenshot(path=str(SHOTS / f"retried-run-{size}.png"))


def test_reloading_again_and_again_during_a_run_logs_no_error_on_the_server(provider_server, signed_in, app_env):
    script(provider_server, tokens_per_second=15, moderator_delay=1)
    page = signed_in("alice")
    log = Path(app_env["TEOREMA_DATA_DIR"]) / "daphne.log"
    logged = len(log.read_text())
    ask(page)
    for _ in range(60):  # a reload every 0.3 s: sooner or later one lands while a fragment is on its way
        page.wait_for_timeout(300)
        page.reload(wait_until="commit")
        if page.locator("#outcome").count():
            break
    wait_for_the_end(page)
    page.wait_for_timeout(500)
    written = log.read_text()[logged:]
    assert "WSDISCONNECT" in written
    assert " ERROR " not in written
    assert "Traceback" not in written


@pytest.mark.parametrize("size", SIZES)
def test_a_streaming_card_holds_its_closing_block_back_as_the_finished_card_does(provider_server, signed_in, size):
    """Issue 50: ANSWER: / CLAIMS: lines streamed raw into the cards until a card ended."""
    provider_server.reset()
    block = "\n\nANSWER: 42\nCLAIMS:\n1. [fact] Six times seven is 42 | confidence: 90% | falsified if: it is not\n"
    for family in ("alpha", "beta", "gamma"):
        answer = f"{family} reasons it through. " * 4 + block + "tail " * 400
        provider_server.script(f"model-{family}", Script(answer=answer, tokens_per_second=20))
    page = signed_in("alice")
    page.set_viewport_size(SIZES[size])
    ask(page)
    # Drawn up to date with a raw text that holds the block, the card still streaming.
    until(
        page,
        """() => [...document.querySelectorAll('.card.status-streaming .card-body.stream')].some((raw) => {
          const drawn = raw.nextElementSibling;
          const text = raw.textContent;
          return text.includes('CLAIMS:') && drawn && drawn.dataset.length === String(text.length);
        })""",
    )
    drawn = page.locator(".card.status-streaming .card-body.drawn").all_inner_texts()
    assert any("reasons it through" in text for text in drawn)
    assert not any("CLAIMS" in text or "ANSWER: 42" in text or "confidence: 90%" in text for text in drawn)
    assert page.evaluate(NO_SIDEWAYS_SCROLL)
