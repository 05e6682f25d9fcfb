"""docs/api.md's examples for asking, run as printed against a real server (issue 50: the docs'
examples run in a test): its curl line asks the panel it names and gets the 201 the page prints,
and an empty question gets the error object printed under Errors. Only the server's address and
the token are the test's own; the panel the example names is seated on the fake provider."""

import asyncio
import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator

import httpx
import pytest

from tests.integrations.conftest import ROOT, Teorema
from tests.waiting import wait_for

ADDRESS = "http://127.0.0.1:8000"
API = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")
SEAT_FIVE = """
from debates.models import Panel
from tests.fakes.roster import make_panel
make_panel({base_url!r}, slug="five")
Panel.objects.filter(slug="house").update(is_default=True)  # the other tests' default stays theirs
Panel.objects.filter(slug="five").update(is_default=False)
"""
UNSEAT_FIVE = """
from debates.models import Panel, Panelist, Provider, Question
Question.objects.filter(panel__slug="five").delete()
Panel.objects.filter(slug="five").delete()
Panelist.objects.filter(name__endswith=" five").delete()
Provider.objects.filter(name="Fake five").delete()
"""


def examples(language: str, start: str, end: str) -> list[str]:
    part = API[API.index(start) : API.index(end)]
    return [code for kind, code in re.findall(r"^```(\w+)\n(.*?)^```$", part, re.M | re.S) if kind == language]


@pytest.fixture
def five(teorema: Teorema, provider_server) -> Iterator[None]:
    """The panel the example names, for this test only (the other tests list the panels there are)."""
    manage = [sys.executable, str(ROOT / "manage.py"), "shell", "-v0", "-c"]
    seed = SEAT_FIVE.format(base_url=provider_server.base_url("openai"))
    subprocess.run([*manage, seed], cwd=ROOT, env=teorema.env, check=True)
    yield
    subprocess.run([*manage, UNSEAT_FIVE], cwd=ROOT, env=teorema.env, check=True)


def status_of(teorema: Teorema, question: int) -> str:
    return teorema.query("SELECT status FROM debates_question WHERE id = ?", question)[0][0]


@pytest.mark.usefixtures("five")
def test_the_curl_example_asks_the_panel_it_names_and_gets_the_201_printed(teorema, scripted):
    [curl] = examples("sh", "## `POST /api/questions`", "## `GET /api/questions/<id>`")
    [created] = examples("json", "`201 Created`", "## `GET /api/questions/<id>`")
    env = os.environ | {"TEOREMA_TOKEN": teorema.tokens["alice"]}
    done = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", curl.replace(ADDRESS, teorema.url)],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    answer = json.loads(done.stdout)
    question = answer["id"]
    websocket = teorema.url.replace("http://", "ws://", 1)
    this_one = created.replace("42", str(question))  # before the address: a port may hold "42"
    printed = this_one.replace(ADDRESS, teorema.url).replace("ws://127.0.0.1:8000", websocket)
    assert answer == json.loads(printed)  # the 201 printed, for this question on this server
    asked = (
        "SELECT q.criticality, p.slug FROM debates_question q JOIN debates_panel p ON q.panel_id = p.id WHERE q.id = ?"
    )
    assert teorema.query(asked, question) == [("high", "five")]
    # The run ends here, so that no later test's fake provider hears from it.
    asyncio.run(wait_for(lambda: status_of(teorema, question) == "done", f"question {question} to end"))


def test_an_empty_question_gets_the_error_printed(teorema, fake_provider):
    [error] = examples("json", "## Errors", "## `POST /api/questions`")
    answer = httpx.post(
        f"{teorema.url}/api/questions",
        json={"text": ""},
        headers={"Authorization": f"Bearer {teorema.tokens['alice']}"},
    )
    assert answer.status_code == 400
    assert answer.json() == json.loads(error)
    assert not fake_provider.requests
