"""A running debate's page in Chromium says how long it still needs, and says it anew as calls end.

Set TEOREMA_SHOTS to a folder to keep screenshots of the running page (desktop and 390 px wide).
"""

import os
import re
from pathlib import Path

import pytest

from tests.browser.test_live_viewer import ANSWERS, ask, script, until, wait_for_the_end

pytestmark = pytest.mark.browser
SHOTS = os.environ.get("TEOREMA_SHOTS")
# Each time the totals line changes, what it says of the calls and of the time left.
WATCH = """
window.__totals = [];
new MutationObserver(function () {
  var totals = document.getElementById("totals");
  var left = totals && totals.querySelector(".time-left");
  var seen = (totals ? totals.querySelector("span").textContent : "") + " | " + (left ? left.textContent : "");
  if (window.__totals[window.__totals.length - 1] !== seen) { window.__totals.push(seen); }
}).observe(document, { subtree: true, childList: true, characterData: true });
"""


def test_the_time_left_shows_while_the_debate_runs_is_said_anew_as_calls_end_and_goes_at_the_end(
    provider_server, signed_in
):
    script(provider_server, ANSWERS, tokens_per_second=8)  # calls of a few seconds each
    page = signed_in("alice")
    page.add_init_script(WATCH)
    ask(page)
    until(page, "() => document.querySelector('#totals .time-left') !== null")
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=f"{SHOTS}/time-left-desktop.png", animations="disabled")
        page.set_viewport_size({"width": 390, "height": 844})
        page.screenshot(path=f"{SHOTS}/time-left-390.png", full_page=True, animations="disabled")
    wait_for_the_end(page)

    seen = page.evaluate("window.__totals")
    said = [(calls, left) for calls, _, left in (line.partition(" | ") for line in seen) if left]
    assert said, seen
    assert all(re.fullmatch(r"about \d+ (s|min) left", left) for _, left in said), said
    assert len({calls for calls, _ in said}) >= 2, seen  # said again after a call ended
    assert page.locator("#totals .time-left").count() == 0  # over: nothing left to wait for
