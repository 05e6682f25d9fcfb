"""A model that quotes its provider's key, and a provider that echoes it in an error, in every
rendering: none reaches a reader anywhere Teorema shows text (the live page and the page, the
JSON API, the OpenAI-compatible endpoint's reasoning and content, MCP ``health``)."""

import asyncio
import subprocess
import sys
from collections.abc import Iterator
from urllib.parse import urlsplit

import httpx
import openai
import pytest

from tests.fakes.provider_server import FakeProviderServer, Script
from tests.fakes.roster import API_KEY as KEY
from tests.integration.viewer import Viewer, watch
from tests.integrations.clients import mcp_session
from tests.integrations.conftest import ROOT, Teorema
from tests.providers.renderings import leaked, quoting, renderings

QUESTION = "Which key does this server use?"
SESSION = (
    "from django.contrib.auth import get_user_model; from django.test import Client; c = Client(); "
    "c.force_login(get_user_model().objects.get(username='alice')); print(c.cookies['sessionid'].value)"
)


@pytest.fixture
def quoted(scripted: FakeProviderServer) -> FakeProviderServer:
    """One voice quotes the key in every rendering, in pieces of three characters."""
    scripted.script("model-alpha", Script(answer=quoting(KEY), chunk_chars=3, tokens_per_second=2000))
    return scripted


def session(teorema: Teorema) -> str:
    """alice's browser session, made by the server's own code."""
    made = subprocess.run(
        [sys.executable, str(ROOT / "manage.py"), "shell", "-v0", "-c", SESSION],
        cwd=ROOT,
        env=teorema.env,
        check=True,
        capture_output=True,
        text=True,
    )
    return made.stdout.strip().splitlines()[-1]


def api(teorema: Teorema, path: str, method: str = "GET", **json: object) -> httpx.Response:
    headers = {"Authorization": f"Bearer {teorema.tokens['alice']}"}
    return httpx.request(method, f"{teorema.url}{path}", headers=headers, json=json or None, timeout=30)


async def test_a_quoted_key_reaches_no_page_no_api_and_no_chat_client(teorema, quoted):
    cookie = session(teorema)
    asked = api(teorema, "/api/questions", "POST", text=QUESTION, panel="house")
    question = asked.json()["id"]
    live = await watch(Viewer(urlsplit(teorema.url).port), question, cookie)  # from the start to the end
    stored = api(teorema, f"/api/questions/{question}").text
    page = (await asyncio.to_thread(httpx.get, f"{teorema.url}/q/{question}/", cookies={"sessionid": cookie})).text
    chat = openai.OpenAI(base_url=f"{teorema.url}/v1", api_key=teorema.tokens["alice"], max_retries=0)
    reply = (
        (
            await asyncio.to_thread(
                chat.chat.completions.create, model="teorema/house", messages=[{"role": "user", "content": QUESTION}]
            )
        )
        .choices[0]
        .message
    )

    shown = {
        "live page": "".join(message for _, message in live.messages),
        "page": page,
        "API": stored,
        "chat reasoning": reply.model_extra["reasoning_content"],
        "chat content": reply.content or "",
    }
    assert {where: leaked(text, KEY) for where, text in shown.items()} == {where: [] for where in shown}
    assert "After it, the answer: add read replicas." in shown["page"]  # the answer itself is all there
    assert "After it, the answer: add read replicas." in shown["chat reasoning"]


def provider_edited(teorema: Teorema) -> None:
    """Save the providers as the admin would: health's kept answer (a minute) is for the settings before."""
    subprocess.run(
        [sys.executable, str(ROOT / "manage.py"), "shell", "-v0", "-c", EDIT], cwd=ROOT, env=teorema.env, check=True
    )


EDIT = "from debates.models import Provider\nfor p in Provider.objects.all(): p.save()"


@pytest.fixture
def asked_afresh_after(teorema: Teorema) -> Iterator[None]:
    """The provider edited once the test is over: the refusal health kept for a minute is not what
    the next test's health reads."""
    yield
    provider_edited(teorema)


@pytest.mark.parametrize("rendering", renderings(KEY))
@pytest.mark.usefixtures("asked_afresh_after")
async def test_mcp_health_says_a_provider_refused_the_key_without_any_rendering_of_it(teorema, scripted, rendering):
    echoed = renderings(KEY)[rendering]
    for model in ("model-alpha", "model-beta", "model-gamma", "model-moderator"):
        scripted.script(model, Script(status=401, error=f"Incorrect API key provided: {echoed}"))
    scripted.models_failure = Script(status=401, error=f"Incorrect API key provided: {echoed}")
    provider_edited(teorema)  # each rendering is asked of the provider, not read from the last one's answer

    async with mcp_session(teorema.url, teorema.tokens["root"]) as client:  # only staff have providers asked
        result = await client.call_tool("health", {})

    said = result.structured_content["providers"][0]["said"]
    assert "rejected the key (401)" in said
    assert leaked(said, KEY) == []
    assert leaked(result.content[0].text, KEY) == []
