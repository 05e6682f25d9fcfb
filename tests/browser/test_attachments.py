"""Files on the ask page in real Chromium: dropped on the picker, pasted from the clipboard, each a chip
that can be removed, the limits checked before sending; then the debate page lists them. Screenshots
(desktop and 390 px) go to /tmp/shots (files-*.png) for a person to look at."""

import base64
import re

import pytest

from tests.browser.test_elsewhere import NO_SIDEWAYS_SCROLL, SHOTS, VIEWPORTS
from tests.browser.test_live_viewer import until, wait_for_the_end
from tests.fakes import files
from tests.fakes.answers import SYNTHESIS

pytestmark = pytest.mark.browser

# Builds a DataTransfer of files from [name, type, base64] in the page, then drops it or pastes it.
GIVE = """([how, given]) => {
  const transfer = new DataTransfer();
  for (const [name, type, data] of given) {
    const bytes = Uint8Array.from(atob(data), (c) => c.charCodeAt(0));
    transfer.items.add(new File([bytes], name, { type }));
  }
  if (how === "drop") {
    const box = document.querySelector(".ask [data-attach]");
    for (const kind of ["dragenter", "dragover", "drop"]) {
      box.dispatchEvent(new DragEvent(kind, { bubbles: true, cancelable: true, dataTransfer: transfer }));
    }
  } else {
    document.querySelector("#id_text").dispatchEvent(
      new ClipboardEvent("paste", { bubbles: true, cancelable: true, clipboardData: transfer }));
  }
}"""


def give(page, how: str, *given: tuple[str, str, bytes]) -> None:
    page.evaluate(GIVE, [how, [[name, kind, base64.b64encode(data).decode()] for name, kind, data in given]])


def chips(page) -> list[str]:
    return page.locator(".ask .attach-chip").evaluate_all("(all) => all.map((c) => c.innerText.replace(/\\s+/g, ' '))")


def shoot(page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    for size, viewport in VIEWPORTS.items():
        page.set_viewport_size(viewport)
        page.evaluate("() => window.scrollTo(0, 0)")
        page.wait_for_timeout(150)
        assert page.evaluate(NO_SIDEWAYS_SCROLL), size
        page.screenshot(path=str(SHOTS / f"files-{name}-{size}.png"))
        page.locator(".ask .attach, .files").first.screenshot(path=str(SHOTS / f"files-{name}-part-{size}.png"))
    page.set_viewport_size(VIEWPORTS["laptop"])


def test_files_are_dropped_and_pasted_then_listed_on_the_debate_page(provider_server, signed_in):
    provider_server.reset()
    provider_server.script("model-moderator", SYNTHESIS)
    page = signed_in("alice")
    page.goto("/")
    page.fill("#id_text", "Why did revenue fall in Q3?")

    give(page, "drop", ("q3-report.pdf", "application/pdf", files.pdf(["Revenue fell 4%.", "Churn doubled."])))
    give(page, "drop", ("notes.md", "text/markdown", b"# Notes\nEurope churn."))
    give(page, "paste", ("image.png", "image/png", files.image(120, 80)))

    shown = chips(page)
    expected = [r"q3-report\.pdf \d+ B · PDF ×", r"notes\.md 21 B · Markdown ×", r"pasted-image-1\.png \d+ B · image ×"]
    assert [re.fullmatch(pattern, chip) is not None for pattern, chip in zip(expected, shown, strict=True)] == [
        True
    ] * 3, shown
    assert page.locator(".ask .attach-chip img.attach-preview").count() == 1
    assert page.inner_text(".ask .attach-blind").startswith("No voice of this panel can see images")
    page.click("button[aria-label='Remove notes.md']")
    assert [chip.split(" ")[0] for chip in chips(page)] == ["q3-report.pdf", "pasted-image-1.png"]
    assert page.evaluate("() => document.querySelector('#id_attachments').files.length") == 2
    shoot(page, "ask")

    page.click("button.primary")
    page.wait_for_url(re.compile(r"/q/\d+/$"))
    wait_for_the_end(page)
    # Who read which file, by name once the run is over, without a reload.
    until(page, "() => document.querySelector('.files').innerText.includes('Alpha house')")
    assert page.locator(".file-seen").count() == 2
    page.reload()
    assert page.locator(".file-seen").count() == 2  # the page itself renders them once
    names = page.locator(".file-card .file-name").all_inner_texts()
    assert names == ["q3-report.pdf", "pasted-image-1.png"]
    assert page.locator(".file-card img.file-thumb").count() == 1
    assert "as text:" in page.inner_text(".files")  # the fake panel's models read text only
    assert "could not see it:" in page.inner_text(".files")
    assert page.evaluate("() => window.__csp") == []
    shoot(page, "debate")


def test_too_many_files_are_stopped_before_sending(provider_server, signed_in):
    page = signed_in("bob")
    page.goto("/")
    page.fill("#id_text", "Read all of these")
    give(page, "drop", *[(f"note{i}.txt", "text/plain", b"note") for i in range(6)])

    assert page.inner_text(".ask .attach-problem") == "6 files: at most 5 are accepted."
    page.click("button.primary")
    page.wait_for_timeout(300)
    assert page.url.rstrip("/").endswith(page.url.split("/")[2])  # still on the ask page: nothing was sent


@pytest.mark.parametrize("size", VIEWPORTS)
def test_the_ask_page_says_what_the_files_add_to_the_run_before_sending(provider_server, signed_in, size):
    """Issue 42: the attachment's tokens per voice, on the ask page's estimate."""
    page = signed_in("alice")
    page.set_viewport_size(VIEWPORTS[size])
    page.goto("/")
    give(page, "drop", ("log.txt", "text/plain", b"x" * 4000), ("chart.png", "image/png", files.image(750, 100)))
    page.wait_for_selector(".ask .attach-cost:not([hidden])")
    said = page.inner_text(".ask .attach-cost")
    rates = page.evaluate("() => JSON.parse(document.querySelector('input[name=panel]:checked').dataset.fileRates)")
    tokens = 1000 + (100 if rates["image"] else 0)  # 4,000 bytes of text; a 750 x 100 image, where a voice sees it
    assert said.startswith(f"The files add about {tokens:,} tokens to each of the {rates['calls']} calls"), said
    dollars = 1000 * rates["text"] + 100 * rates["image"]
    assert (f"about ${dollars:.3f} more for this panel" if dollars >= 0.0005 else "no cost") in said
    assert rates["unseen"]  # the fake panel's models read text only: each is named
    assert said.endswith(f"Cannot see the images: {', '.join(rates['unseen'])}."), said
    page.click("button[aria-label='Remove log.txt']")
    page.wait_for_function(
        "() => { const c = document.querySelector('.ask .attach-cost');"
        " return c.hidden || !c.textContent.includes('1,0'); }"
    )


@pytest.mark.parametrize("size", VIEWPORTS)
def test_a_file_too_large_is_not_priced_and_the_others_stay_chosen(provider_server, signed_in, size):
    """Issue 50: a file refused for its size leaves the good ones chosen and adds nothing to the estimate."""
    page = signed_in("alice")
    page.set_viewport_size(VIEWPORTS[size])
    page.goto("/")
    give(page, "drop", ("log.txt", "text/plain", b"x" * 4000))
    page.wait_for_selector(".ask .attach-cost:not([hidden])")
    alone = page.inner_text(".ask .attach-cost")
    page.evaluate(
        """(bytes) => {
          const transfer = new DataTransfer();
          transfer.items.add(new File([new Uint8Array(bytes)], "huge.txt", { type: "text/plain" }));
          document.querySelector(".ask [data-attach]").dispatchEvent(
            new DragEvent("drop", { bubbles: true, cancelable: true, dataTransfer: transfer }));
        }""",
        21 * 2**20,
    )
    assert page.inner_text(".ask .attach-problem").startswith("huge.txt is 21.0 MB")
    assert [chip.split(" ")[0] for chip in chips(page)] == ["log.txt", "huge.txt"]
    page.wait_for_timeout(300)  # a later estimate would say otherwise by now
    assert page.inner_text(".ask .attach-cost") == alone


@pytest.mark.parametrize("size", VIEWPORTS)
def test_a_refused_file_says_which_files_to_attach_again(provider_server, signed_in, size):
    """Issue 50: the form comes back without its files (no browser keeps them), so it names the good ones."""
    page = signed_in("alice")
    page.set_viewport_size(VIEWPORTS[size])
    page.goto("/")
    page.fill("#id_text", "Read these")
    bundle = ("bundle.zip", "application/zip", files.zip_archive())
    give(page, "drop", ("notes.md", "text/markdown", b"# Notes"), bundle)
    page.click("button.primary")
    said = page.inner_text(".error-box")
    assert "bundle.zip is a ZIP archive" in said
    assert "attach notes.md again." in said
    assert "attach bundle.zip" not in said
