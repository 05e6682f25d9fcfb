"""A real Daphne on loopback, its own SQLite and data dir, a roster on the fake provider server,
and headless Debian Chromium driven by Playwright (never a downloaded browser)."""

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.fakes.provider_server import FakeProviderServer

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    *("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"),
    *("--disable-component-update", "--disable-sync", "--no-first-run"),
]
ROOT = Path(__file__).resolve().parents[2]
SEED = """
from django.contrib.auth import get_user_model
from tests.fakes.roster import make_panel
users = get_user_model().objects
users.create_user("alice", password="pw-alice-123")
users.create_user("bob", password="pw-bob-123")
make_panel({base_url!r})
"""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def app_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The app's environment: its own SQLite and data dir, which a test's manage.py commands share."""
    if not Path(CHROMIUM).exists():
        pytest.skip("the browser tests need Debian's chromium (scripts/ensure-chromium)")
    data = tmp_path_factory.mktemp("teorema-data")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DATABASE_URL", "REDIS_URL", "TEOREMA_"))}
    return env | {"TEOREMA_DATA_DIR": str(data), "DJANGO_SETTINGS_MODULE": "teorema.settings", "PYTHONPATH": str(ROOT)}


@pytest.fixture(scope="module")
def app_url(provider_server: FakeProviderServer, app_env: dict[str, str]) -> Iterator[str]:
    """Daphne serving Teorema; migrated and seeded in the subprocess's own environment."""
    env, data = app_env, Path(app_env["TEOREMA_DATA_DIR"])
    manage = [sys.executable, str(ROOT / "manage.py")]
    subprocess.run([*manage, "migrate", "--no-input", "-v0"], cwd=ROOT, env=env, check=True)
    # No collectstatic: local mode serves static files as `make run` does.
    seed = SEED.format(base_url=provider_server.base_url("openai"))
    subprocess.run([*manage, "shell", "-c", seed], cwd=ROOT, env=env, check=True)
    with daphne(env, data) as url:
        yield url


@contextmanager
def daphne(env: dict[str, str], data: Path) -> Iterator[str]:
    """``teorema.serve`` on a free loopback port with ``env``, its log in ``data``; its URL once it answers."""
    with serving(
        ["-m", "teorema.serve", "-b", "127.0.0.1", "-p", "{port}", "teorema.asgi:application"], env, data / "daphne.log"
    ) as url:
        yield url


@contextmanager
def serving(args: list[str], env: dict[str, str], log: Path) -> Iterator[str]:
    """A Python server started with ``args`` (``{port}`` in them: a free loopback port), its output in
    ``log``; its URL once it answers, and stopped after."""
    port = free_port()
    argv = [sys.executable, *(arg.format(port=port) for arg in args)]
    with log.open("w") as out:
        server = subprocess.Popen(argv, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
        url = f"http://127.0.0.1:{port}"
        try:
            wait_until_up(url, server)
            yield url
        finally:
            server.terminate()
            server.wait(10)


def wait_until_up(url: str, server: subprocess.Popen, patience: float = 60.0) -> None:
    deadline = time.monotonic() + patience
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise RuntimeError(f"Daphne exited with {server.returncode}")
        try:
            urllib.request.urlopen(f"{url}/accounts/login/", timeout=2)
            return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError("Daphne did not answer within a minute")


@pytest.fixture(scope="module")
def browser():
    """Module-scoped: Playwright's sync API keeps an event loop running in this thread while it
    is open, and every async test after it would find that loop and refuse to start."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


# Recorded before any page script: script execution, alerts, CSP violations and every text a
# streaming card ever showed (to prove that nothing was doubled on the way).
HOOKS = """
window.__pwned = 0;
window.__alerts = [];
window.__csp = [];
window.__seen = new Set();
window.alert = function (message) { window.__alerts.push(String(message)); };
document.addEventListener("securitypolicyviolation", function (event) {
  window.__csp.push(event.violatedDirective + " " + event.blockedURI);
});
new MutationObserver(function () {
  document.querySelectorAll(".card-body.stream").forEach(function (body) {
    if (body.textContent) { window.__seen.add(body.textContent); }
  });
}).observe(document, { subtree: true, childList: true, characterData: true });
"""


@pytest.fixture
def signed_in(browser, app_url):
    """A fresh browser context signed in as the given user; console errors are collected."""
    contexts = []

    def sign_in(username: str):
        context = browser.new_context(base_url=app_url)
        context.set_default_timeout(60_000)
        context.add_init_script(HOOKS)
        contexts.append(context)
        page = context.new_page()
        page.console_errors = []
        page.on("console", lambda m: m.type == "error" and page.console_errors.append(m.text))
        page.goto("/accounts/login/")
        page.fill("#id_username", username)
        page.fill("#id_password", f"pw-{username}-123")
        page.click("button[type=submit]")
        page.wait_for_url(f"{app_url}/")
        return page

    yield sign_in
    for context in contexts:
        context.close()
