"""Issue 49: a unanimous panel worded three ways ("No — keep the monolith this year", "Stay with the
monolith this year", "Don't migrate to microservices this year") reads unanimous on the page, in
the Markdown and JSON exports, through the API and in the terminal, and no debate runs: no word
list splits it 2–1."""

import json
import subprocess
import sys

import pytest

from tests.browser.conftest import ROOT
from tests.browser.test_live_viewer import until, wait_for_the_end
from tests.browser.test_one_story import ask_on_dissent
from tests.viewer import story

pytestmark = pytest.mark.browser


def test_the_unanimous_monolith_panel_is_unanimous_on_every_surface(provider_server, signed_in, app_env):
    story.script(provider_server, split=False, lines=story.ISSUE_49_LINES)
    page = signed_in("alice")
    ask_on_dissent(page)
    wait_for_the_end(page)
    until(page, "() => document.querySelector('#verdict .chip.support') !== null")
    assert page.inner_text("#verdict .chip.support") == "unanimous 3/3 · confidence 0.85"
    assert page.inner_text(".debate-check").startswith("Debate skipped: every voice that answered gives one answer")
    assert page.locator(".kind-debate").count() == 0
    stances = page.inner_text("#ledger .stance-list")
    assert stances.count("✓ agrees") == 3
    assert "disagrees" not in stances
    assert page.locator(".agreement-notes").count() == 0  # nothing refused, nothing noticed

    question = page.url.rstrip("/").rsplit("/", 1)[-1]
    found = page.request.get(f"/api/questions/{question}").json()
    assert found["ledger"]["agreement"]["method"] == "judge"
    assert [len(g["members"]) for g in found["ledger"]["agreement"]["groups"]] == [3]
    assert found["panel_run"]["debate"]["skipped"] is True
    assert found["synthesis"]["evidence_strength"] == "strong"
    markdown = page.request.get(f"/q/{question}/export.md").text()
    assert "*unanimous 3/3 · confidence 0.85*" in markdown
    assert "**Debate skipped:**" in markdown
    assert "refused" not in markdown
    exported = json.loads(page.request.get(f"/q/{question}/export.json").text())
    assert [len(g["members"]) for g in exported["ledger"]["agreement"]["groups"]] == [3]

    # The same panel asked from the terminal.
    ask = [sys.executable, str(ROOT / "manage.py"), "ask", story.QUESTION, "--debate", "on_dissent"]
    said = subprocess.run(ask, cwd=ROOT, env=app_env, capture_output=True, text=True, timeout=300, check=True).stdout
    assert "Debate skipped: every voice that answered gives one answer (3/3, grouped by meaning" in said
    assert "Agreement: unanimous 3/3 · confidence 0.85 (strong support)" in said
    assert said.count("✓ agrees") == 3
    assert "== Round 1" not in said
