"""A question asked from the terminal, watched in the browser: local mode, two processes.

`manage.py ask` runs the debate in its own process; Daphne serves the page. With the in-memory
channel layer the terminal's broadcasts never reach Daphne, so the page says where the run is,
polls the stored rows, and ends on the verdict by itself.
"""

import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tests.browser.conftest import ROOT, free_port, wait_until_up
from tests.fakes.answers import SYNTHESIS
from tests.fakes.provider_server import FakeProviderServer, Script

pytestmark = pytest.mark.browser
QUESTION = "Should we add read replicas or shard the database?"
FAMILIES = ("alpha", "beta", "gamma")
SHOTS = Path("/tmp/shots")
VIEWPORTS = {"laptop": {"width": 1400, "height": 900}, "phone": {"width": 390, "height": 844}}
NO_SIDEWAYS_SCROLL = "() => document.documentElement.scrollWidth <= window.innerWidth"


def script(server: FakeProviderServer, tokens_per_second: float) -> None:
    """Each voice takes a few seconds a round: long enough for a page to see the run going on."""
    server.reset()
    for family in FAMILIES:
        answer = (
            f"{family.upper()} answers: add read replicas because reads dominate the database load; "
            "shard only if writes grow past what one primary takes. Confidence 70%, fails if writes triple."
        )
        server.script(
            f"model-{family}", Script(answer=answer, first_token_delay=0.3, tokens_per_second=tokens_per_second)
        )
    server.script("model-moderator", Script(answer=SYNTHESIS, tokens_per_second=20))


class Terminal:
    """`manage.py ask` in a process of its own, its output collected as it comes."""

    def __init__(self, env: dict[str, str], app_url: str) -> None:
        command = [sys.executable, str(ROOT / "manage.py"), "ask", QUESTION, "--panel", "house", "--user", "alice"]
        env = env | {"PYTHONUNBUFFERED": "1", "TEOREMA_PUBLIC_URL": app_url}
        self.process = subprocess.Popen(
            command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
        )
        self.lines: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.append(line.rstrip("\n"))

    def line_with(self, text: str, patience_s: float = 60.0) -> str:
        deadline = time.monotonic() + patience_s
        while time.monotonic() < deadline:
            found = next((line for line in self.lines if text in line), None)
            if found is not None:
                return found
            if self.process.poll() is not None and not any(text in line for line in self.lines):
                time.sleep(0.2)  # the reader may still be behind the exit
                if not any(text in line for line in self.lines):
                    break
            time.sleep(0.1)
        raise AssertionError(f"the terminal never printed {text!r}:\n" + "\n".join(self.lines))

    def page_url(self) -> str:
        """The address it prints near the start, as a reader would copy it."""
        line = self.line_with("Follow it in the browser: ")
        return line.split("Follow it in the browser: ", 1)[1].split(" ", 1)[0]

    def finish(self, patience_s: float = 120.0) -> int:
        try:
            return self.process.wait(patience_s)
        finally:
            if self.process.poll() is None:
                self.process.kill()


@pytest.fixture
def terminal(app_env, app_url):
    started: list[Terminal] = []

    def start() -> Terminal:
        started.append(Terminal(app_env, app_url))
        return started[-1]

    yield start
    for each in started:
        if each.process.poll() is None:
            each.process.kill()
            each.process.wait(10)


@pytest.fixture
def restart(app_env):
    """`make run` again: a fresh web server on the same database (the first one keeps serving the page)."""
    servers: list[subprocess.Popen] = []

    def start() -> None:
        port = free_port()
        daphne = [sys.executable, "-m", "teorema.serve", "-b", "127.0.0.1", "-p", str(port), "teorema.asgi:application"]
        servers.append(
            subprocess.Popen(daphne, cwd=ROOT, env=app_env, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
        )
        wait_until_up(f"http://127.0.0.1:{port}", servers[-1])  # its first call resumes what a dead process left

    yield start
    for server in servers:
        server.terminate()
        server.wait(10)


def until_text(page, selector: str, text: str, patience_s: float = 60.0) -> None:
    """Poll the page's text (wait_for_function would need eval: the CSP forbids it); never a reload."""
    for _ in range(int(patience_s * 10)):
        if page.locator(selector).count() and text in " ".join(page.inner_text(selector).split()):
            return
        page.wait_for_timeout(100)
    raise AssertionError(f"never showed {text!r} in {selector}:\n{page.inner_text('main')[:3000]}")


def shoot(page, name: str, schemes: tuple[str, ...] = ("light", "dark"), part=None, prefix: str = "elsewhere") -> None:
    """Screenshots (of the page, or of one ``part`` of it) at both sizes, in each scheme, and never a
    page wider than its screen."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    for size, viewport in VIEWPORTS.items():
        page.set_viewport_size(viewport)
        for scheme in schemes:
            page.emulate_media(color_scheme=scheme)
            page.wait_for_timeout(150)
            assert page.evaluate(NO_SIDEWAYS_SCROLL), (name, size, scheme)
            (part or page).screenshot(path=str(SHOTS / f"{prefix}-{name}-{size}-{scheme}.png"))
    page.set_viewport_size(VIEWPORTS["laptop"])
    page.emulate_media(color_scheme="light")


def test_ctrl_c_in_the_terminal_turns_the_notice_into_what_happens_next(provider_server, signed_in, terminal, restart):
    # First in the module: Daphne's own second look for interrupted runs comes a lease (60 s) after it started.
    script(provider_server, tokens_per_second=2)
    ask = terminal()
    url = ask.page_url()
    ask.line_with("== Round 0")  # the terminal holds the run's lease from here on
    page = signed_in("alice")
    page.goto(url)
    until_text(page, ".elsewhere", f"Running in another process — pid {ask.process.pid} on this machine")

    ask.process.send_signal(signal.SIGINT)
    assert ask.finish(30) == 130
    until_text(page, ".elsewhere", "Interrupted — the process that ran this debate", patience_s=15)
    notice = " ".join(page.inner_text(".elsewhere").split())
    assert "and a cancel was asked for (Ctrl-C in manage.py ask asks for one)" in notice
    assert "When this web server starts again (make run), it takes the run up and records it as cancelled" in notice
    assert "it had stored no answer yet" in notice  # a voice on 2 tokens a second had not finished
    assert page.inner_text("#progress").strip().startswith("Interrupted")
    shoot(page, "interrupted")

    restart()  # what the notice promises: the next server to start records the run as cancelled
    until_text(page, "#verdict", "Cancelled", patience_s=30)
    for _ in range(150):  # the verdict's outcome form swaps its placeholder in by a request of its own
        if page.locator(".elsewhere, [hx-trigger]").count() == 0:
            break
        page.wait_for_timeout(100)
    assert page.locator(".elsewhere, [hx-trigger]").count() == 0
    assert page.evaluate("window.__csp") == []


def test_a_question_asked_in_the_terminal_says_where_it_runs_then_ends_on_its_verdict(
    provider_server, signed_in, terminal, app_url
):
    script(provider_server, tokens_per_second=6)
    ask = terminal()
    url = ask.page_url()
    assert re.fullmatch(rf"{re.escape(app_url)}/q/\d+/", url)
    ask.line_with("== Round 0")
    page = signed_in("alice")
    page.goto(url)

    until_text(page, ".elsewhere", f"Running in another process — pid {ask.process.pid} on this machine")
    notice = " ".join(page.inner_text(".elsewhere").split())
    assert "most likely the terminal that ran manage.py ask" in notice
    assert "this page shows each answer as it is stored and refreshes every few seconds" in notice
    assert page.locator("[ws-connect], [data-connection]").count() == 0  # no "live · Running" that never moves
    assert page.locator("#live[hx-trigger='every 3s']").count() == 1
    shoot(page, "running")

    # The answers come as the terminal stores them, then the verdict: no reload, ever.
    navigations: list[str] = []
    page.on("framenavigated", lambda frame: navigations.append(frame.url))
    page.wait_for_selector(".kind-answer .card", timeout=60_000)
    shoot(page, "answers", schemes=("dark",))
    page.wait_for_selector("#verdict", timeout=120_000)
    until_text(page, "#verdict", "Use read replicas.")
    assert navigations == []
    assert page.locator(".elsewhere, [hx-trigger], [ws-connect]").count() == 0  # the polling stopped with the run
    assert page.title().startswith("✓ Verdict")  # announced as the socket's end is
    assert "Verdict: Use read replicas." in (page.text_content("#announce") or "")
    assert ask.finish() == 0
    assert "Verdict: Use read replicas." in "\n".join(ask.lines)
    shoot(page, "finished", schemes=("light",))
    assert page.evaluate("window.__csp") == []
    assert [e for e in page.console_errors if "htmx" in e.lower()] == []
    assert os.path.exists(SHOTS / "elsewhere-running-phone-dark.png")
