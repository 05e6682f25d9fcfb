"""What a reader used to ChatGPT, Perplexity or Open WebUI expects of the question page, in Chromium:
Ctrl/Cmd+Enter asks, Copy gives the Markdown (over http on a LAN address too), figures and Markdown
move as the text streams, the outcome form and a notification come with the end of a run."""

import re

import pytest

from tests.browser.test_elsewhere import SHOTS
from tests.browser.test_everywhere import manage
from tests.browser.test_live_viewer import QUESTION, XSS, ask, until, wait_for_the_end
from tests.fakes.answers import SYNTHESIS
from tests.fakes.provider_server import FakeProviderServer, Script

pytestmark = pytest.mark.browser
LAPTOP, PHONE = {"width": 1400, "height": 900}, {"width": 390, "height": 844}
FAMILIES = ("alpha", "beta", "gamma")
MARKDOWN = (
    "## Read replicas\n\nAdd **read replicas**: reads dominate the load.\n\n"
    "- lag stays under a second\n- failover is tested\n\n"
    + " ".join(["More on lag.", "More on failover."] * 15)
    + "\n\n"
)
A_MAC = """
Object.defineProperty(Navigator.prototype, "platform", { get: () => "MacIntel" });
Object.defineProperty(Navigator.prototype, "userAgentData", { get: () => undefined });
"""
# http on a LAN address: no navigator.clipboard. What the fallback copied is recorded.
NO_CLIPBOARD_API = """
Object.defineProperty(Navigator.prototype, "clipboard", { get: () => undefined });
window.__copied = [];
const execCommand = document.execCommand.bind(document);
document.execCommand = function (command) {
  const area = document.activeElement;
  window.__copied.push(area.value.slice(area.selectionStart, area.selectionEnd));
  return execCommand(command);
};
"""
# A browser's notifications, recorded: whether permission was asked, what was shown, a hidden tab.
NOTIFICATIONS = """
window.__asked = 0;
window.__notes = [];
class Recorded { constructor(title, options) { window.__notes.push([title, options.body]); } close() {} }
Recorded.permission = "default";
Recorded.requestPermission = function () {
  window.__asked += 1;
  Recorded.permission = "granted";
  return Promise.resolve("granted");
};
window.Notification = Recorded;
Object.defineProperty(document, "hidden", { get: () => Boolean(window.__hidden) });
"""


def script(server: FakeProviderServer, answer: str, tokens_per_second: float | None) -> None:
    server.reset()
    for family in FAMILIES:
        server.script(
            f"model-{family}", Script(answer=f"{family.upper()} says:\n\n{answer}", tokens_per_second=tokens_per_second)
        )
    server.script("model-moderator", Script(answer=SYNTHESIS, tokens_per_second=tokens_per_second))


def copied(page, button: str) -> str:
    """Click a copy button; what the clipboard holds once the page says so, to screen readers too."""
    page.evaluate("() => navigator.clipboard.writeText('')")
    page.click(button)
    until(page, "() => document.getElementById('copied').textContent === 'Copied as Markdown'", patience_s=10)
    return page.evaluate("() => navigator.clipboard.readText()")


@pytest.mark.parametrize("system", ["linux", "mac"])
def test_ctrl_or_cmd_enter_asks_from_the_textarea_and_the_hint_says_which(provider_server, signed_in, system):
    script(provider_server, "Add read replicas.", tokens_per_second=None)
    page = signed_in("alice")
    if system == "mac":
        page.context.add_init_script(A_MAC)
        page.reload()
    page.set_viewport_size(PHONE)
    keys = "Meta+Enter" if system == "mac" else "Control+Enter"
    assert page.inner_text(".ask .send-keys") == ("⌘ Cmd+Enter to ask" if system == "mac" else "Ctrl+Enter to ask")
    page.fill("#id_text", QUESTION)
    page.press("#id_text", keys)
    page.wait_for_url(re.compile(r"/q/\d+/$"))
    wait_for_the_end(page)
    page.reload()  # the follow-up form comes with a finished page
    page.fill("#follow-up-text", "And if writes triple?")
    first = page.url
    page.press("#follow-up-text", keys)
    page.wait_for_url(lambda url: url != first and re.search(r"/q/\d+/$", url) is not None)
    assert "And if writes triple?" in page.inner_text("h1")


def test_copy_gives_the_markdown_live_finished_shared_and_without_the_clipboard_api(
    provider_server, signed_in, browser, app_url, app_env
):
    script(provider_server, MARKDOWN, tokens_per_second=25)
    page = signed_in("alice")
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    question = ask(page)
    # A card that arrived over the socket, still streaming: what it has written so far.
    until(page, "() => document.querySelector('.kind-answer .card.status-streaming button[data-copy]') !== null")
    so_far = copied(page, ".kind-answer .card.status-streaming button[data-copy] >> nth=0")
    assert re.match(r"(ALPHA|BETA|GAMMA) says:\n\n## Read replicas", so_far)
    assert page.locator("#copied").get_attribute("role") == "status"
    wait_for_the_end(page)

    answer = page.locator(".kind-answer details.fold").first
    answer.locator("summary").click()
    assert copied(page, ".kind-answer details.fold[open] button[data-copy]") in {
        f"{f.upper()} says:\n\n{MARKDOWN.strip()}" for f in FAMILIES
    }
    assert page.inner_text(".kind-answer details.fold[open] button[data-copy]") == "Copied ✓"
    assert copied(page, "#verdict .verdict-facts button[data-copy]") == "Use read replicas."
    assert copied(page, "#outcome button[data-copy]") == SYNTHESIS.strip()

    link = manage(
        app_env,
        "from debates.conversations import sharing\nfrom debates.models import Question\n"
        f"q = Question.objects.get(pk={question})\nsharing.share(q, 'link', hide_cost=False)\n"
        "print(sharing.link_path(q))",
    ).strip()
    reader = browser.new_context(base_url=app_url)  # signed out, on a LAN address over http
    reader.add_init_script(NO_CLIPBOARD_API)
    shared = reader.new_page()
    shared.goto(link)
    shared.click("#verdict .verdict-facts button[data-copy]")
    until(shared, "() => document.getElementById('copied').textContent === 'Copied as Markdown'", patience_s=10)
    assert shared.evaluate("() => window.__copied") == ["Use read replicas."]
    reader.close()


@pytest.mark.parametrize(
    ("size", "scheme"), [(size, scheme) for size in ("laptop", "phone") for scheme in ("light", "dark")]
)
def test_markdown_and_figures_move_as_the_text_streams_and_nothing_in_it_runs(provider_server, signed_in, size, scheme):
    script(provider_server, MARKDOWN + XSS, tokens_per_second=12)
    page = signed_in("alice")
    page.set_viewport_size(LAPTOP if size == "laptop" else PHONE)
    page.emulate_media(color_scheme=scheme)
    ask(page)
    streaming = ".kind-answer .card.status-streaming"
    until(page, f"() => document.querySelector('{streaming} .card-body.drawn li') !== null")
    # Drawn as Markdown while it streams, the raw text hidden beside it.
    drawn = page.locator(f"{streaming} .card-body.drawn").first
    assert drawn.locator("h2").inner_text() == "Read replicas"
    assert drawn.locator("strong").inner_text() == "read replicas"
    assert page.locator(f"{streaming} .card-body.stream").first.is_hidden()
    # The figures move before any call has ended, marked as an estimate.
    assert page.locator(".kind-answer .card.status-done").count() == 0
    first = page.inner_text("#totals [data-tokens]")
    assert re.fullmatch(r"~\d+ tokens in \+ out", first)
    assert re.fullmatch(r"~\$\d+\.\d{4}", page.inner_text("#totals [data-cost]"))
    estimate = page.locator(f"{streaming} [data-estimate]").first.inner_text()
    assert re.fullmatch(r"~\d+ in \+ ~\d+ out tokens", estimate)  # labelled as a finished card's figures
    until(page, "(first) => document.querySelector('#totals [data-tokens]').textContent !== first", first)
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"question-live-{size}-{scheme}.png"))
    # The payload reaches the drawn card and does nothing there.
    until(
        page,
        f"() => [...document.querySelectorAll('{streaming} .card-body.drawn')]"
        ".some(b => b.textContent.includes('click me'))",
    )
    assert (
        page.locator(".card-body.drawn img, .card-body.drawn script, .card-body.drawn a[href^='javascript']").count()
        == 0
    )
    assert page.evaluate("window.__pwned") == 0
    wait_for_the_end(page)
    until(page, "() => !document.querySelector('#totals')")  # the live bar is gone with the run
    assert re.search(r"\d+ calls · \d+ tokens in \+ out · \$\d+\.\d{4}", page.inner_text("#verdict .summary"))
    page.screenshot(path=str(SHOTS / f"question-finished-{size}-{scheme}.png"), full_page=True)
    assert page.evaluate("window.__pwned") == 0
    assert page.evaluate("window.__csp") == []


def test_the_outcome_form_and_a_notification_come_with_the_end_of_a_run_watched_live(provider_server, signed_in):
    script(provider_server, "Add read replicas.", tokens_per_second=6)
    page = signed_in("alice")
    page.context.add_init_script(NOTIFICATIONS)
    ask(page)
    notify = page.locator("[data-notify]")
    until(page, "() => !document.querySelector('[data-notify]').hidden")
    assert page.evaluate("window.__asked") == 0  # nothing asked without a click
    assert notify.get_attribute("aria-pressed") == "false"
    notify.click()
    until(page, "() => document.querySelector('[data-notify]').getAttribute('aria-pressed') === 'true'")
    assert page.evaluate("window.__asked") == 1
    page.evaluate("() => { window.__hidden = true; }")  # the reader went to another tab
    wait_for_the_end(page)

    until(page, "() => window.__notes.length > 0")
    [(title, body)] = page.evaluate("window.__notes")
    assert title.startswith("✓ Verdict — ")
    assert body == "Verdict: Use read replicas."
    # Without a reload: the outcome form, which posts.
    page.wait_for_selector("#verdict-outcome input[value=right]", timeout=10_000)
    page.check("#verdict-outcome input[value=right]")
    page.click("#verdict-outcome button[type=submit]")
    page.wait_for_selector("#verdict-outcome .badge.outcome-right")


def test_a_run_that_ends_in_view_notifies_nobody(provider_server, signed_in):
    script(provider_server, "Add read replicas.", tokens_per_second=20)
    page = signed_in("alice")
    page.context.add_init_script(NOTIFICATIONS)
    page.evaluate("() => localStorage.setItem('teorema.notify', 'on')")  # opted in before
    page.context.add_init_script("window.Notification.permission = 'granted';")
    ask(page)
    wait_for_the_end(page)
    until(page, "() => document.title.startsWith('✓ Verdict')")
    assert page.evaluate("window.__notes") == []


def test_a_printed_page_opens_every_fold_and_the_screen_gets_them_back(provider_server, signed_in):
    script(provider_server, "Add read replicas.", tokens_per_second=None)
    page = signed_in("alice")
    ask(page)
    wait_for_the_end(page)
    page.reload()  # the finished page as a reader opens it
    closed = "() => document.querySelectorAll('details:not([open])').length"
    folded = page.evaluate(closed)
    assert folded > 0  # the claims, who was who, the context…
    page.evaluate("() => window.dispatchEvent(new Event('beforeprint'))")
    assert page.evaluate(closed) == 0
    page.evaluate("() => window.dispatchEvent(new Event('afterprint'))")
    assert page.evaluate(closed) == folded
