"""Conversations in a real browser: a follow-up asked from the finished page (the form appears as
the run ends, no reload), the thread above it and in History, a read-only link opened signed out,
and the print view; on a laptop and on a phone, never scrolling sideways.

Set TEOREMA_SHOTS to a folder to keep screenshots of each view there.
"""

import os
import re
from pathlib import Path

import pytest

from tests.browser.test_live_viewer import wait_for_the_end
from tests.fakes.provider_server import FakeProviderServer, Script

pytestmark = pytest.mark.browser
LAPTOP = {"width": 1400, "height": 900}
PHONE = {"width": 390, "height": 844}
NO_SIDEWAYS_SCROLL = "() => document.documentElement.scrollWidth <= window.innerWidth"
QUESTION = "Should we add read replicas or shard the reporting database?"
FOLLOW_UP = "And if writes triple next year: does the verdict change?"
SYNTHESIS = (
    "## Consensus\nReads dominate the load.\n\n## Disagreements\nWhether replica lag matters for the reports.\n\n"
    "## Verdict\nAdd read replicas now; revisit sharding if writes triple."
)
SHOTS = os.environ.get("TEOREMA_SHOTS")


def script(server: FakeProviderServer) -> None:
    server.reset()
    for family in ("alpha", "beta", "gamma"):
        server.script(
            f"model-{family}",
            Script(
                answer=lambda request: (
                    "Then shard by tenant, because writes would outgrow one primary."
                    if FOLLOW_UP in request.prompt
                    else "Add read replicas: reads are most of the load, and replicas are cheap to run."
                ),
                tokens_per_second=200,
            ),
        )
    # The first verdict waits a few seconds, so the page is surely loaded before the run ends
    # (the test checks the follow-up form is hidden until then); the follow-up's comes at once.
    server.script(
        "model-moderator",
        Script(answer=SYNTHESIS, tokens_per_second=200, first_token_delay=4.0),
        Script(answer=SYNTHESIS, tokens_per_second=200),
    )


def shot(page, name: str) -> None:
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=f"{SHOTS}/{name}.png", full_page=True, animations="disabled")


def both_sizes(page, name: str) -> None:
    """The page reads on a laptop and on a phone without scrolling sideways."""
    for size, viewport in (("laptop", LAPTOP), ("phone", PHONE)):
        page.set_viewport_size(viewport)
        assert page.evaluate(NO_SIDEWAYS_SCROLL), f"{name} scrolls sideways on a {size}"
        shot(page, f"{name}-{size}")
    page.set_viewport_size(LAPTOP)


def question_id(url: str) -> int:
    return int(re.search(r"/q/(\d+)/$", url)[1])


def test_a_follow_up_from_the_page_and_a_link_read_signed_out(provider_server, signed_in, browser, app_url):
    script(provider_server)
    page = signed_in("alice")
    page.set_viewport_size(LAPTOP)
    page.fill("#id_text", QUESTION)
    page.click("form.ask button.primary")
    page.wait_for_url(re.compile(r"/q/\d+/$"))
    first = question_id(page.url)
    assert page.locator("#follow-up").is_hidden()  # no verdict yet to follow
    wait_for_the_end(page)
    page.wait_for_selector("#follow-up", state="visible")  # shown by the final swap, without a reload
    both_sizes(page, "question-finished")

    page.click("#follow-up button.primary")  # empty: refused, and the reader is taken to the reason
    assert "Write a question: it is empty." in page.inner_text("#follow-up .error-box")
    assert page.evaluate("() => document.activeElement.id") == "follow-up-text"
    page.fill("#follow-up-text", FOLLOW_UP)
    page.click("#follow-up button.primary")
    page.wait_for_url(lambda url: bool(re.search(r"/q/\d+/$", url)) and not url.endswith(f"/q/{first}/"))
    second = question_id(page.url)
    thread = page.locator(".thread")
    assert QUESTION in thread.inner_text()
    assert "Add read replicas now" in thread.inner_text()  # the verdict it follows
    wait_for_the_end(page)
    assert "Then shard by tenant" in page.inner_text("main")
    both_sizes(page, "follow-up")
    thread.locator("a").click()
    page.wait_for_url(f"{app_url}/q/{first}/")
    assert FOLLOW_UP in page.inner_text(".follow-ups")

    # Share the follow-up by link, its cost hidden, and read it signed out.
    page.goto(f"/q/{second}/")
    page.click(".share summary")
    page.check("input[name=visibility][value=link]")
    page.check("input[name=hide_cost]")
    page.click(".share button:text('Save')")
    link = page.input_value("#share-url")
    assert "Anyone with this link can read it" in page.inner_text(".messages")
    page.click(".share summary")
    both_sizes(page, "share-open")

    stranger = browser.new_context(base_url=app_url).new_page()
    stranger.goto(link)
    main = stranger.inner_text("main")
    assert FOLLOW_UP in main
    assert "Then shard by tenant" in main
    assert "alice" not in stranger.content()
    assert "$" not in main
    assert stranger.locator("form").count() == 0
    assert "not open to you" in stranger.inner_text(".thread")  # the first question is not shared by link
    both_sizes(stranger, "shared-link")
    stranger.context.close()

    # History: the thread is one row; its follow-up unfolds inside it.
    page.goto("/history/")
    row = page.locator("tr", has=page.locator(f"a[href='/q/{first}/']"))
    assert "1 follow-up" in row.inner_text()
    row.locator(".thread-more summary").click()
    assert FOLLOW_UP in row.locator(".thread-more").inner_text()
    both_sizes(page, "history-thread")
    for viewport in (LAPTOP, PHONE):  # issue 50: the agreement column, in the run page's words, and on a phone's card
        page.set_viewport_size(viewport)
        agreement = row.locator(":scope > td.agreement-cell")
        assert agreement.is_visible()
        assert agreement.inner_text() == "unanimous 3/3"
    page.goto(f"/q/{first}/")
    assert page.inner_text("#verdict .chip.support").startswith("unanimous 3/3")


def test_the_print_view_is_the_debate_alone_with_every_fold_open(provider_server, signed_in):
    script(provider_server)
    page = signed_in("bob")
    page.fill("#id_text", QUESTION)
    page.click("form.ask button.primary")
    page.wait_for_url(re.compile(r"/q/\d+/$"))
    wait_for_the_end(page)
    page.reload()
    folded = page.locator("#rounds details:not([open]) .card-body").first
    assert folded.is_hidden()
    page.emulate_media(media="print")
    for gone in ("header.site", "#follow-up", ".share", ".reask", ".export-links"):
        assert page.locator(gone).first.is_hidden(), gone
    assert folded.is_visible()  # folded rounds print whole
    assert QUESTION in page.inner_text("main")
    assert "criticality" in page.inner_text(".question-head")  # a glossary term is a button, and it prints
    shot(page, "print")
