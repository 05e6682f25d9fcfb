"""The MCP section's client configurations, run as printed against a real server (issue 50: the
docs' examples run in a test): a desktop client's stdio config, started in the environment a
desktop client gives it, and the IDEs' HTTP config with its bearer header. Only the clone's path,
the server's address, the token and the data folder the docs say to add are the test's own."""

import json
import re
import subprocess
import sys

import httpx
import pytest
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

from tests.integrations.conftest import ROOT, Teorema

pytestmark = pytest.mark.anyio
ADDRESS = "http://127.0.0.1:8000"
TOOLS = {"ask_panel", "follow_up", "get_question", "cancel_question", "list_panels", "record_outcome", "health"}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def snippet(teorema: Teorema, holding: str) -> dict:
    """The MCP section's JSON example holding ``holding``, with this test's path, address and token."""
    text = (ROOT / "docs" / "integrations.md").read_text(encoding="utf-8")
    section = text[text.index("## MCP") : text.index("## OpenAI-compatible endpoint")]
    [found] = [code for code in re.findall(r"^```json\n(.*?)^```$", section, re.M | re.S) if holding in code]
    printed = found.replace("/path/to/teorema", str(ROOT)).replace(ADDRESS, teorema.url)
    return json.loads(printed.replace("tk_…", teorema.tokens["alice"]))


@pytest.fixture
def admin(teorema: Teorema) -> None:
    """The user the docs' config names (``manage.py bootstrap`` makes one)."""
    seed = "from django.contrib.auth import get_user_model\nget_user_model().objects.get_or_create(username='admin')"
    manage = [sys.executable, str(ROOT / "manage.py")]
    subprocess.run([*manage, "shell", "-v0", "-c", seed], cwd=ROOT, env=teorema.env, check=True)


@pytest.mark.usefixtures("admin")
async def test_the_desktop_clients_stdio_config_starts_a_server_with_the_seven_tools(teorema, tmp_path):
    server = snippet(teorema, "mcpServers")["mcpServers"]["teorema"]
    # The docs: a data folder other than the default goes in the config's env.
    env = server["env"] | {"TEOREMA_DATA_DIR": teorema.env["TEOREMA_DATA_DIR"]}
    started = StdioServerParameters(command=server["command"], args=server["args"], env=env, cwd=str(tmp_path))
    async with stdio_client(started) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        listed = await session.list_tools()
        panels = await session.call_tool("list_panels", {})
    assert {tool.name for tool in listed.tools} == TOOLS
    assert not panels.is_error
    assert "house" in json.dumps(panels.structured_content)


async def test_the_ides_http_config_reaches_the_server_with_its_token(teorema):
    server = snippet(teorema, '"servers"')["servers"]["teorema"]
    assert server["type"] == "http"
    async with (
        httpx.AsyncClient(headers=server["headers"], timeout=60) as http,
        streamable_http_client(server["url"], http_client=http) as (read, write, *_),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        listed = await session.list_tools()
    assert {tool.name for tool in listed.tools} == TOOLS
