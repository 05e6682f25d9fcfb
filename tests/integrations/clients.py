"""The real clients' connections, shared by the tests that drive them."""

import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import httpx
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

ROOT = Path(__file__).resolve().parents[2]


@asynccontextmanager
async def mcp_session(url: str, token: str) -> AsyncIterator[ClientSession]:
    """The SDK's client over Streamable HTTP to ``url``/mcp, with ``token`` as the bearer."""
    headers = {"Authorization": f"Bearer {token}"}
    async with (
        httpx.AsyncClient(headers=headers, timeout=120) as http,
        streamable_http_client(f"{url}/mcp", http_client=http) as (read, write, *_),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        yield session


@asynccontextmanager
async def mcp_stdio_session(env: dict[str, str], user: str) -> AsyncIterator[ClientSession]:
    """The SDK's client over stdio to ``manage.py mcp --user`` as its subprocess (a desktop client's way)."""
    command = StdioServerParameters(
        command=sys.executable, args=[str(ROOT / "manage.py"), "mcp", "--user", user], env=env, cwd=str(ROOT)
    )
    async with stdio_client(command) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        yield session
