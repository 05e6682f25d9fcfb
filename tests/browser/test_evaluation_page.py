"""The evaluation page in a real browser: progress arrives while ``manage.py evaluate`` runs, then
the plot and the tables read on a laptop and on a phone, light and dark, without scrolling sideways."""

import subprocess
import sys
from pathlib import Path

import pytest

from tests.browser.conftest import ROOT
from tests.evaluation import scenario
from tests.fakes.provider_server import FakeProviderServer, Script

pytestmark = pytest.mark.browser
LAPTOP = {"width": 1400, "height": 900}
PHONE = {"width": 390, "height": 844}
NO_SIDEWAYS_SCROLL = "() => document.documentElement.scrollWidth <= window.innerWidth"


def evaluate(app_env: dict[str, str], dataset: Path) -> subprocess.Popen:
    command = [sys.executable, str(ROOT / "manage.py"), "evaluate", str(dataset), "--panel", "house", "--user", "alice"]
    return subprocess.Popen(command, cwd=ROOT, env=app_env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def test_the_evaluation_page_follows_the_run_then_reads_everywhere(
    provider_server: FakeProviderServer, app_env, signed_in, tmp_path: Path
) -> None:
    provider_server.reset()
    scenario.script(provider_server)
    provider_server.script("model-moderator", Script(answer=scenario.moderator, first_token_delay=1.0))
    running = evaluate(app_env, scenario.write_dataset(tmp_path / "six.jsonl"))
    page = signed_in("alice")
    page.set_viewport_size(LAPTOP)
    try:
        page.goto("/evaluations/")
        while page.locator(".evaluation-list a").count() == 0:  # the command has not written it yet
            page.wait_for_timeout(200)
            page.reload()
        page.click(".evaluation-list a")
        page.wait_for_selector("#evaluation-results[hx-trigger]")  # running: the page polls
        # The progress moves without a reload (htmx swaps the results in), up to the end.
        page.wait_for_function("() => /[1-5] of 6 items/.test(document.querySelector('.eval-progress').textContent)")
        page.wait_for_function("() => document.querySelector('.eval-progress .badge').textContent === 'Done'")
    finally:
        output = running.communicate(timeout=120)[0]
    assert running.returncode == 0, output

    assert page.locator("#evaluation-results[hx-trigger]").count() == 0  # finished: polling stopped
    assert page.inner_text(".eval-progress .count") == "6 of 6 items"
    assert page.locator(".accuracy-plot .fill").count() == 5
    assert "5/6 · 83.3% (44%–97%)" in page.inner_text(".accuracy-plot")
    assert page.locator(".eval-items tbody tr").count() == 6
    for viewport in (LAPTOP, PHONE):
        page.set_viewport_size(viewport)
        for scheme in ("light", "dark"):
            page.emulate_media(color_scheme=scheme)
            assert page.evaluate(NO_SIDEWAYS_SCROLL), (viewport, scheme)
            plot = page.locator(".accuracy-plot svg").bounding_box()
            assert plot is not None
            assert plot["x"] >= 0
            assert plot["x"] + plot["width"] <= viewport["width"]
    # On a phone each item is a card of labelled chips: the names are there, not in a header off screen.
    assert page.locator(".eval-items thead").bounding_box()["height"] <= 1
    assert page.locator(".eval-items .cell-name >> nth=0").is_visible()
    assert page.evaluate("window.__csp") == []
    assert page.console_errors == []
