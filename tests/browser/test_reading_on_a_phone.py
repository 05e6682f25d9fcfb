"""The question page read on a phone (390 px) and on a laptop, light and dark: no text under 12 px,
every tap target at least 24 × 24 px, what a reader rarely opens folded (the page stays short, the
verdict first), and no heading or anchor ever hidden under the sticky status bar."""

import pytest

from tests.browser.test_ledger_view import LAPTOP, NO_SIDEWAYS_SCROLL, PHONE, VOICES
from tests.browser.test_live_viewer import ask, until, wait_for_the_end
from tests.fakes.answers import SYNTHESIS
from tests.fakes.provider_server import FakeProviderServer, Script

pytestmark = pytest.mark.browser
# Elements that show text of their own, set under 12 px.
SMALL_TEXT = """() => [...document.querySelectorAll('main *')].filter(el =>
    el.checkVisibility() && [...el.childNodes].some(n => n.nodeType === 3 && n.textContent.trim())
    && parseFloat(getComputedStyle(el).fontSize) < 12
  ).map(el => el.className + ' ' + getComputedStyle(el).fontSize + ': ' + el.textContent.trim().slice(0, 30))"""
# What a finger taps, smaller than 24 × 24 px (WCAG 2.5.8). A link inside a sentence is exempt, as
# there; a radio button's target is its label.
SMALL_TARGETS = """() => [...document.querySelectorAll(
    'main a, main button, main summary, main input, main select, main textarea, main [role=tab]')]
  .filter(el => el.checkVisibility() && !(el.matches('a') && el.closest('p, li, td')))
  .map(el => [el, (el.closest('label') || el).getBoundingClientRect()])
  .filter(([el, box]) => box.width < 24 || box.height < 24)
  .map(([el, box]) => el.tagName + '.' + el.className + ' ' + Math.round(box.width) + 'x' + Math.round(box.height))"""
PAGE_HEIGHT = "() => document.documentElement.scrollHeight"
# The gap between the bottom of the sticky bar and the top of an element scrolled to (negative: under it).
UNDER_THE_BAR = """(selector) => {
  const bar = document.querySelector('.live-bar');
  const target = document.querySelector(selector);
  target.scrollIntoView({ block: 'start' });
  return target.getBoundingClientRect().top - bar.getBoundingClientRect().bottom;
}"""


def script(server: FakeProviderServer, tokens_per_second: float | None = None) -> None:
    server.reset()
    for family, voice in VOICES.items():
        server.script(f"model-{family}", Script(answer=voice, tokens_per_second=tokens_per_second))
    server.script("model-moderator", Script(answer=SYNTHESIS, tokens_per_second=tokens_per_second))


@pytest.fixture(scope="module")
def finished(browser, app_url: str, provider_server: FakeProviderServer) -> str:
    """The path of a finished debate with a ledger: stances, six claims, a changed mind."""
    script(provider_server)
    context = browser.new_context(base_url=app_url)
    page = context.new_page()
    page.goto("/accounts/login/")
    page.fill("#id_username", "alice")
    page.fill("#id_password", "pw-alice-123")
    page.click("button[type=submit]")
    page.wait_for_url(f"{app_url}/")
    ask(page)
    wait_for_the_end(page)
    path = page.url.removeprefix(app_url)
    context.close()
    return path


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_on_a_phone_no_text_is_under_12_px_and_every_tap_target_is_24_px(finished, signed_in, scheme):
    page = signed_in("alice")
    page.emulate_media(color_scheme=scheme)
    page.set_viewport_size(PHONE)
    page.goto(finished)
    page.click("button.term >> nth=0")  # a glossary term opened: its meaning is text too
    page.click("#ledger details.claims > summary")  # every fold of the claims opened
    page.click("#ledger details.claim-text summary >> nth=0")
    page.click(".reveal > summary")
    small, targets = page.evaluate(SMALL_TEXT), page.evaluate(SMALL_TARGETS)
    assert (small, targets) == ([], []), "\n".join([*small, *targets])
    assert page.evaluate(NO_SIDEWAYS_SCROLL)


def test_on_a_phone_the_finished_page_folds_what_is_rarely_opened_and_keeps_the_verdict_first(finished, signed_in):
    page = signed_in("alice")
    page.set_viewport_size(PHONE)
    page.goto(finished)
    height = page.evaluate(PAGE_HEIGHT)
    assert height < 4500, height  # 5,671 px for this debate before the folds (7,186 for the issue's)
    verdict = page.locator("#verdict").bounding_box()
    ledger = page.locator("#ledger").bounding_box()
    assert verdict is not None
    assert ledger is not None
    assert verdict["y"] < ledger["y"]
    assert page.locator("#verdict .verdict-text").is_visible()  # the verdict itself is never folded
    assert page.locator("#ledger .stance-list").is_visible()  # nor where each voice stands


@pytest.mark.parametrize("size", ["laptop", "phone"])
def test_the_status_bar_never_covers_a_round_heading_or_an_anchor(provider_server, signed_in, size):
    script(provider_server, tokens_per_second=4)
    page = signed_in("alice")
    page.set_viewport_size(LAPTOP if size == "laptop" else PHONE)
    ask(page)
    until(page, "() => document.querySelectorAll('.kind-answer .card.status-streaming').length >= 3")
    page.uncheck("[data-follow]")
    assert page.evaluate(UNDER_THE_BAR, ".kind-answer .round-title") >= 0
    assert page.evaluate(UNDER_THE_BAR, ".kind-answer .card") >= 0
    page.goto(page.url + "#panel-run")  # an anchor followed while the bar is pinned
    page.wait_for_selector("[data-connection][data-state=open]")
    page.evaluate("() => document.getElementById('panel-run').scrollIntoView()")
    assert page.evaluate(UNDER_THE_BAR, "#panel-run") >= 0
    wait_for_the_end(page)
