"""The MCP server, driven by the official ``mcp`` SDK's client: over stdio (``manage.py mcp`` as a
subprocess, as a desktop client starts it) and over Streamable HTTP (``/mcp`` in the web server)."""

import sys
import time
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager

import anyio
import httpx
import pytest
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from tests.fakes.answers import SYNTHESIS
from tests.fakes.provider_server import Script
from tests.integrations.clients import mcp_session
from tests.integrations.conftest import ROOT, Teorema, voice_answer

pytestmark = pytest.mark.anyio
QUESTION = "Read replicas or sharding for our reporting load?"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@asynccontextmanager
async def over_stdio(teorema: Teorema, user: str = "alice") -> AsyncIterator[ClientSession]:
    command = StdioServerParameters(
        command=sys.executable, args=[str(ROOT / "manage.py"), "mcp", "--user", user], env=teorema.env, cwd=str(ROOT)
    )
    async with stdio_client(command) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        yield session


def over_http(teorema: Teorema, user: str = "alice") -> AbstractAsyncContextManager[ClientSession]:
    return mcp_session(teorema.url, teorema.tokens[user])


TRANSPORTS = {"stdio": over_stdio, "http": over_http}


def newest(teorema: Teorema) -> int:
    return teorema.query("SELECT max(id) FROM debates_question")[0][0]


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_ask_panel_returns_the_verdict_with_progress_per_phase_and_voice(teorema, scripted, transport):
    told: list[tuple[float, str]] = []

    async def progress(done: float, total: float | None, message: str | None) -> None:
        told.append((done, message or ""))

    async with TRANSPORTS[transport](teorema) as session:
        assert {tool.name for tool in (await session.list_tools()).tools} == {
            "ask_panel",
            "follow_up",
            "get_question",
            "list_panels",
            "record_outcome",
            "health",
        }
        result = await session.call_tool("ask_panel", {"question": QUESTION}, progress_callback=progress)
    question = newest(teorema)
    assert not result.is_error
    found = result.structured_content
    assert found["id"] == question
    assert found["status"] == "done"
    assert found["verdict"] == "Use read replicas."
    assert found["url"] == f"{teorema.url}/q/{question}/" or transport == "stdio"
    assert "**Verdict:** Use read replicas." in result.content[0].text
    messages = [message for _, message in told]
    assert [done for done, _ in told] == list(range(1, len(told) + 1))  # progress only grows
    assert "Round 0 — independent answers" in messages
    for label in ("Panelist A", "Panelist B", "Panelist C"):
        assert any(message.startswith(f"{label} — blind answers: done (") for message in messages)
    assert any(message.startswith("Moderator — synthesis: done") for message in messages)
    assert teorema.query("SELECT source, status FROM debates_question WHERE id = ?", question) == [("mcp", "done")]


async def test_follow_up_get_question_and_outcome_share_the_pages_rules(teorema, scripted):
    async with over_http(teorema) as session:
        first = await session.call_tool("ask_panel", {"question": QUESTION})
        parent = first.structured_content["id"]
        later = await session.call_tool("follow_up", {"question_id": parent, "question": "And if writes triple?"})
        assert later.structured_content["follow_up_of"] == parent
        read = await session.call_tool("get_question", {"question_id": parent})
        assert read.structured_content["synthesis"].strip() == SYNTHESIS.strip()
        judged = await session.call_tool("record_outcome", {"question_id": parent, "outcome": "right", "note": "held"})
        assert judged.structured_content["outcome"] == "right"
        panels = await session.call_tool("list_panels", {})
        assert panels.structured_content["panels"][0]["slug"] == "house"
        assert panels.structured_content["panels"][0]["runnable"] is True
    async with over_http(teorema, "bob") as session:  # bob may not read alice's question, nor judge it
        for tool, arguments in [
            ("get_question", {"question_id": parent}),
            ("follow_up", {"question_id": parent, "question": "Mine now?"}),
            ("record_outcome", {"question_id": parent, "outcome": "wrong"}),
        ]:
            refused = await session.call_tool(tool, arguments)
            assert refused.is_error, tool
            assert "question" in refused.content[0].text.lower()


@pytest.mark.parametrize(
    ("tool", "arguments", "words"),
    [
        ("ask_panel", {"question": QUESTION, "panel": "nowhere"}, "panel"),
        ("ask_panel", {"question": ""}, "question"),
        ("ask_panel", {"question": 42}, "question"),
        ("ask_panel", {"question": QUESTION, "deadline": "soon"}, "deadline"),
        ("ask_panel", {"question": QUESTION, "deadline": 5}, "deadline"),
        ("ask_panel", {"question": QUESTION, "criticality": "extreme"}, "criticality"),
        ("ask_panel", {"question": QUESTION, "options": ["only one"]}, "option"),
        ("get_question", {"question_id": 999999}, "No question 999999"),
        ("record_outcome", {"question_id": 1, "outcome": "perhaps"}, "outcome"),
    ],
)
async def test_wrong_input_is_refused_in_words_and_asks_nothing(teorema, fake_provider, tool, arguments, words):
    before = newest(teorema)
    async with over_http(teorema) as session:
        refused = await session.call_tool(tool, arguments)
    assert refused.is_error
    assert words.lower() in refused.content[0].text.lower()
    assert newest(teorema) == before
    assert not fake_provider.requests


@pytest.mark.parametrize("authorization", ["", "Bearer tk_wrong", "Basic YWxpY2U6cHc="])
async def test_http_without_a_valid_token_is_refused_in_words(teorema, authorization):
    async with httpx.AsyncClient() as http:
        answer = await http.post(
            f"{teorema.url}/mcp",
            headers={"Authorization": authorization, "Accept": "application/json, text/event-stream"},
            json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
        )
    assert answer.status_code == 401
    assert "Bearer" in answer.headers["WWW-Authenticate"]
    assert "Authentication required" in answer.json()["error"]["message"]


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_a_cancel_from_the_client_cancels_the_run_and_keeps_what_was_written(teorema, fake_provider, transport):
    for family in ("alpha", "beta", "gamma"):
        fake_provider.script(f"model-{family}", Script(answer=voice_answer(family) * 20, tokens_per_second=20))
    fake_provider.script("model-moderator", Script(answer=SYNTHESIS, tokens_per_second=200))
    started = anyio.Event()

    async def progress(done: float, total: float | None, message: str | None) -> None:
        started.set()

    async with TRANSPORTS[transport](teorema) as session:
        with anyio.move_on_after(30):
            async with anyio.create_task_group() as group:

                async def ask() -> None:
                    await session.call_tool("ask_panel", {"question": QUESTION}, progress_callback=progress)

                group.start_soon(ask)
                await started.wait()
                await anyio.sleep(1.0)  # the voices are writing
                group.cancel_scope.cancel()  # the SDK's client sends notifications/cancelled
    question = newest(teorema)
    deadline = time.monotonic() + 20
    while teorema.query("SELECT status FROM debates_question WHERE id = ?", question)[0][0] != "cancelled":
        assert time.monotonic() < deadline, "the run was not cancelled"
        await anyio.sleep(0.2)
    kept = teorema.query(
        "SELECT c.text FROM debates_contribution c JOIN debates_round r ON c.round_id = r.id WHERE r.question_id = ?",
        question,
    )
    assert kept
    assert all(text.startswith(("ALPHA", "BETA", "GAMMA")) for (text,) in kept)  # each voice kept its words


async def test_stdio_for_an_unknown_user_says_so(teorema):
    process = await anyio.run_process(
        [sys.executable, str(ROOT / "manage.py"), "mcp", "--user", "nobody"], env=teorema.env, check=False
    )
    assert process.returncode != 0
    assert "There is no active user “nobody”" in process.stderr.decode()


async def test_health_says_which_keys_are_there_whether_a_provider_answers_and_each_panels_time(teorema, scripted):
    async with over_http(teorema) as session:
        report = (await session.call_tool("health", {})).structured_content
        unprobed = (await session.call_tool("health", {"probe": False})).structured_content
    assert report["ok"] is True
    assert report["providers"] == [
        {"name": "Fake house", "key": "present", "reachable": True, "said": report["providers"][0]["said"]}
    ]
    assert "answered" in report["providers"][0]["said"]
    assert report["panels"][0]["estimated_seconds"] >= 0
    assert "reachable" not in unprobed["providers"][0]
