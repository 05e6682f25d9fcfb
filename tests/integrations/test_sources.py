"""What the voices cite, read by real clients: the OpenAI-compatible endpoint's content (footnote
links) through the ``openai`` package, MCP's ask_panel through the ``mcp`` SDK, the JSON API and
the exports, from a real server whose panel searches the web (Perplexity's wire, on the fake)."""

import subprocess
import sys
from collections.abc import Iterator

import httpx
import openai
import pytest

from tests.fakes.answers import SYNTHESIS
from tests.fakes.provider_server import FakeProviderServer, Script
from tests.fakes.wire import Cite
from tests.integrations.clients import mcp_session
from tests.integrations.conftest import ROOT, Teorema

QUESTION = "At what temperature does water boil at sea level?"
PAGE = "https://example.org/boiling"
CITE = Cite(PAGE, "Boiling point", "water boils at 100 degrees Celsius", "Water boils at 100 °C at sea level.[1]")
CITING = (
    "Water boils at 100 °C at sea level.[1] Higher up it boils lower.\n\nANSWER: 100 °C\nCLAIMS:\n"
    "1. [fact] Water boils at 100 °C at sea level | confidence: 95% | falsified if: a calibrated thermometer "
    "reads otherwise at sea level\n"
)
SILENT = (
    "It boils at 100 °C.\n\nANSWER: 100 °C\nCLAIMS:\n"
    "1. [fact] Water boils at 100 °C | confidence: 80% | falsified if: a calibrated thermometer reads otherwise\n"
)
SEARCHING = """
from debates.models import Panelist, Provider
Provider.objects.filter(name="Fake house").update(preset={preset!r})
Panelist.objects.filter(model__in=["model-alpha", "model-beta"]).update(search={search})
"""


def roster(teorema: Teorema, preset: str, search: bool) -> None:
    code = SEARCHING.format(preset=preset, search=search)
    manage = [sys.executable, str(ROOT / "manage.py"), "shell", "-v0", "-c", code]
    subprocess.run(manage, cwd=ROOT, env=teorema.env, check=True)


@pytest.fixture
def searching(teorema: Teorema, fake_provider: FakeProviderServer) -> Iterator[FakeProviderServer]:
    """The house panel on Perplexity's wire: alpha searches and cites a page, beta searches and cites
    nothing, gamma may not search (its requests say disable_search). Put back as it was afterwards."""
    roster(teorema, "perplexity", True)
    fake_provider.script("model-alpha", Script(answer=CITING, sources=(CITE,), tokens_per_second=400))
    fake_provider.script("model-beta", Script(answer=SILENT, tokens_per_second=400))
    fake_provider.script("model-gamma", Script(answer=SILENT, sources=(CITE,), tokens_per_second=400))
    fake_provider.script("model-moderator", Script(answer=SYNTHESIS, tokens_per_second=400))
    yield fake_provider
    roster(teorema, "", False)


def api(teorema: Teorema, path: str) -> httpx.Response:
    return httpx.get(f"{teorema.url}{path}", headers={"Authorization": f"Bearer {teorema.tokens['alice']}"})


def newest(teorema: Teorema) -> int:
    return teorema.query("SELECT max(id) FROM debates_question")[0][0]


def test_the_openai_reply_links_what_the_panel_cites_and_says_who_cites_nothing(teorema, searching):
    reply = openai.OpenAI(base_url=f"{teorema.url}/v1", api_key=teorema.tokens["alice"], max_retries=0)
    message = (
        reply.chat.completions.create(model="teorema/house", messages=[{"role": "user", "content": QUESTION}])
        .choices[0]
        .message
    )
    assert "**Sources the panel cites:**" in message.content
    assert (
        f"1. [Boiling point](<{PAGE}>) — “water boils at 100 degrees Celsius” — cited by Panelist " in message.content
    )
    assert "Searched the web: Panelist " in message.content
    reasoning = message.model_extra["reasoning_content"]
    assert f"1. [Boiling point](<{PAGE}>)" in reasoning  # under the voice that cites it
    assert "*Unsourced: it cites no source for what it says.*" in reasoning  # beta, which searched for nothing
    gamma = searching.requests_for("model-gamma")
    assert gamma
    assert all(r.body["disable_search"] is True for r in gamma)  # asked natively: Perplexity's own switch


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.anyio
async def test_mcp_ask_panel_lists_the_panels_sources_with_who_cites_them(teorema, searching):
    async with mcp_session(teorema.url, teorema.tokens["alice"]) as session:
        result = await session.call_tool("ask_panel", {"question": QUESTION})
    assert not result.is_error
    found = result.structured_content
    (page,) = found["sources"]
    (citer,) = page["cited_by"]
    assert (page["url"], page["name"]) == (PAGE, "Boiling point")
    assert len(found["searched"]) == 2  # alpha and beta searched; gamma was told not to
    assert citer in found["searched"]
    text = result.content[0].text
    assert f"1. [Boiling point](<{PAGE}>) — “water boils at 100 degrees Celsius” — cited by {citer}" in text


def test_the_json_api_gives_each_contributions_sources_and_says_which_voice_is_unsourced(teorema, searching):
    reply = openai.OpenAI(base_url=f"{teorema.url}/v1", api_key=teorema.tokens["alice"], max_retries=0)
    reply.chat.completions.create(model="teorema/house", messages=[{"role": "user", "content": QUESTION}])
    found = api(teorema, f"/api/questions/{newest(teorema)}").json()
    assert found["search"] is True
    blind = found["rounds"][0]["contributions"]
    (cited,) = [c for c in blind if c["sources"]]
    (note,) = cited["sources"]
    assert (note["n"], note["url"], note["supports"]) == (1, PAGE, ["Water boils at 100 °C at sea level.[1]"])
    assert cited["closing"]["claims"][0]["sources"] == [1]
    assert sorted((c["searches"], c["unsourced"]) for c in blind) == [(0, False), (1, False), (1, True)]
    assert sorted(bool(row["sources"]) for row in found["ledger"]["claims"]) == [False, False, True]
