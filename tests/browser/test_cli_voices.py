"""A debate of Claude Code, Gemini CLI and Qwen Code in a real browser: Chromium ↔ Daphne ↔ the
engine ↔ the real CLIs ↔ the fake provider server. Each voice's words reach its card as they come."""

import shutil
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.browser.conftest import HOOKS, ROOT, daphne
from tests.browser.test_live_viewer import ask, until, wait_for_the_end
from tests.fakes.answers import SYNTHESIS
from tests.fakes.clis import BIN, MODELS, THEIRS, require_clis
from tests.fakes.provider_server import FakeProviderServer, Script

pytestmark = pytest.mark.browser
SEED = """
from django.contrib.auth import get_user_model
from tests.fakes.clis import make_cli_panel
get_user_model().objects.create_user("alice", password="pw-alice-123")
make_cli_panel({url!r})
"""
WORDS = " ".join(f"point{i} on replicas;" for i in range(30))
ANSWERS = {cli: f"{cli} answers: add read replicas because reads dominate. {WORDS} Done." for cli in MODELS}


@pytest.fixture(scope="module")
def cli_app(provider_server: FakeProviderServer, app_env: dict[str, str], tmp_path_factory) -> Iterator[str]:
    """Daphne whose panel is the three CLIs, each on the fake, with nobody's login in its HOME."""
    require_clis()
    home = tmp_path_factory.mktemp("home")
    scratch = ROOT / "data" / f"test-cli-browser-{uuid.uuid4().hex[:8]}"
    env = {k: v for k, v in app_env.items() if k not in THEIRS}
    env |= {"HOME": str(home), "TEOREMA_CLI_PATH": str(BIN), "TEOREMA_CLI_SCRATCH": str(scratch)}
    env["TEOREMA_DATA_DIR"] = str(tmp_path_factory.mktemp("cli-data"))
    manage = [sys.executable, str(ROOT / "manage.py")]
    subprocess.run([*manage, "migrate", "--no-input", "-v0"], cwd=ROOT, env=env, check=True)
    subprocess.run([*manage, "shell", "-c", SEED.format(url=provider_server.url)], cwd=ROOT, env=env, check=True)
    try:
        with daphne(env, Path(env["TEOREMA_DATA_DIR"])) as url:
            yield url
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def test_each_cli_voices_words_stream_to_its_card_as_they_come(browser, cli_app, provider_server):
    provider_server.reset()
    for cli, answer in ANSWERS.items():  # paced: the words come over seconds, so a card shows them growing
        told = lambda request, answer=answer: SYNTHESIS if "moderator of a panel" in request.system else answer  # noqa: E731
        provider_server.script(MODELS[cli], Script(answer=told, tokens_per_second=8))
    context = browser.new_context(base_url=cli_app)
    context.set_default_timeout(60_000)
    context.add_init_script(HOOKS)
    page = context.new_page()
    page.goto("/accounts/login/")
    page.fill("#id_username", "alice")
    page.fill("#id_password", "pw-alice-123")
    page.click("button[type=submit]")
    ask(page)
    until(page, "() => document.querySelectorAll('.kind-answer .card.status-streaming').length >= 1", patience_s=60)
    wait_for_the_end(page)
    texts = page.eval_on_selector_all(
        ".kind-answer .card-body:not(.judgement)", "bodies => bodies.map(b => b.textContent.trim())"
    )
    assert sorted(texts) == sorted(ANSWERS[cli] for cli in ("claude-code", "gemini-cli", "qwen-code"))
    seen = page.evaluate("[...window.__seen]")
    partial = [text for text in seen if any(full.startswith(text) and full != text for full in ANSWERS.values())]
    assert partial  # a card showed a voice's words before its last one came
    context.close()


def test_a_cli_voice_with_no_cost_reads_on_your_subscription_on_its_card_and_in_the_totals(
    browser, cli_app, provider_server
):
    provider_server.reset()
    for cli, answer in ANSWERS.items():
        told = lambda request, answer=answer: SYNTHESIS if "moderator of a panel" in request.system else answer  # noqa: E731
        provider_server.script(MODELS[cli], Script(answer=told))
    context = browser.new_context(base_url=cli_app, viewport={"width": 1400, "height": 900})
    context.set_default_timeout(60_000)
    page = context.new_page()
    page.goto("/accounts/login/")
    page.fill("#id_username", "alice")
    page.fill("#id_password", "pw-alice-123")
    page.click("button[type=submit]")
    ask(page)
    wait_for_the_end(page)
    # Claude Code on an API key reports its price; Gemini CLI and Qwen Code report none: their plans pay.
    paid = page.locator(".kind-answer .card .on-subscription")
    assert paid.count() == 2
    assert paid.all_text_contents() == ["on your subscription"] * 2
    summary = page.locator(".hint", has_text="voices on your subscription").first
    assert summary.is_visible()
    assert " + 2 voices on your subscription" in summary.text_content()
    assert page.evaluate("document.documentElement.scrollWidth") <= 1400  # nothing pushed past the page
    context.close()
