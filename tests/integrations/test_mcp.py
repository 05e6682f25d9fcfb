"""The MCP server, driven by the official ``mcp`` SDK's client: over stdio (``manage.py mcp`` as a
subprocess, as a desktop client starts it) and over Streamable HTTP (``/mcp`` in the web server)."""

import sys
import time
from contextlib import AbstractAsyncContextManager

import anyio
import httpx
import pytest
from mcp import ClientSession

from tests.fakes.answers import SYNTHESIS
from tests.fakes.provider_server import Script
from tests.integrations.clients import mcp_session, mcp_stdio_session
from tests.integrations.conftest import ROOT, Teorema, voice_answer

pytestmark = pytest.mark.anyio
QUESTION = "Read replicas or sharding for our reporting load?"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def over_stdio(teorema: Teorema, user: str = "alice") -> AbstractAsyncContextManager[ClientSession]:
    return mcp_stdio_session(teorema.env, user)


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
            "cancel_question",
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


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_progress_says_each_phase_once_in_order_and_the_judge_before_the_verdict(teorema, scripted, transport):
    messages: list[str] = []

    async def progress(done: float, total: float | None, message: str | None) -> None:
        messages.append(message or "")

    async with TRANSPORTS[transport](teorema) as session:
        await session.call_tool("ask_panel", {"question": QUESTION}, progress_callback=progress)
    assert len(messages) == len(set(messages)), messages  # each line once
    # A round's check phase is seen only when the follower looks while SymPy reads the round (these
    # answers state no computation, so it shows no step): where it is, it is the round's own.
    checking = [at for at, message in enumerate(messages) if message.endswith("numbers checked (SymPy)")]
    for at in checking:
        assert messages[at].split(" — ")[0] in {"Round 0", "Round 1"}, messages
    messages = [message for at, message in enumerate(messages) if at not in checking]
    stages = [stage(message) for message in messages]
    assert stages == sorted(stages), messages  # phase by phase; the voices of one in the order they end
    assert stages.count(1) == stages.count(4) == 3  # each voice, in each round
    assert set(stages) == set(range(len(STAGES))), messages


# The progress lines of a run of the scripted panel, phase by phase: the words each one's line holds.
STAGES = [
    "Round 0 — independent answers",
    "— blind answers: done",
    "Judge — the judge's grouping of the answers: done",
    "Round 1 — debate on the dossier",
    "— debate: done",
    "Moderator — synthesis",  # the phase, then the moderator's line once it is stored
    "Moderator — synthesis: done",
]


def stage(line: str) -> int:
    """A progress line's place among the run's phases (the last of STAGES whose words it holds)."""
    return max(at for at, words in enumerate(STAGES) if words in line)


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
        estimate = panels.structured_content["panels"][0]["estimate"]
        assert float(estimate["low"]) <= float(estimate["expected"]) <= float(estimate["high"])
        assert f"(${estimate['low']}–${estimate['high']})" in panels.content[0].text
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


async def test_the_sdks_client_with_a_wrong_token_raises_our_words(teorema):
    with pytest.raises(Exception) as raised:  # noqa: PT011 (the SDK's error, maybe in a group)
        async with mcp_session(teorema.url, "tk_wrong"):
            pass
    assert "That token is not valid" in described(raised.value)


def described(error: BaseException) -> str:
    """An error's words and those of every error it groups or was raised from."""
    inner = [*getattr(error, "exceptions", ()), *([error.__cause__] if error.__cause__ else [])]
    return " ".join([str(error), *(described(each) for each in inner)])


def slow_voices(fake_provider) -> None:
    for family in ("alpha", "beta", "gamma"):
        fake_provider.script(f"model-{family}", Script(answer=voice_answer(family) * 20, tokens_per_second=20))
    fake_provider.script("model-moderator", Script(answer=SYNTHESIS, tokens_per_second=200))


async def status_of(teorema: Teorema, question: int) -> str:
    return teorema.query("SELECT status FROM debates_question WHERE id = ?", question)[0][0]


async def until_status(teorema: Teorema, question: int, status: str) -> None:
    deadline = time.monotonic() + 45
    while await status_of(teorema, question) != status:
        assert time.monotonic() < deadline, f"question {question} never became {status}"
        await anyio.sleep(0.2)


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_a_call_that_ends_early_stops_the_waiting_never_the_debate(teorema, fake_provider, transport):
    slow_voices(fake_provider)
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
    # The run goes on to its verdict: over HTTP where it runs, in the web server; over stdio, the
    # client ends the server process it started, and the web server takes the run up.
    await until_status(teorema, question, "done")


async def test_a_reader_whose_wait_times_out_leaves_the_askers_debate_running(teorema, fake_provider):
    """Issue 41: a reader of a shared question who drops a waiting get_question cancelled the run."""
    slow_voices(fake_provider)
    async with over_http(teorema) as asker:
        asked = await asker.call_tool("ask_panel", {"question": QUESTION, "wait": False})
    question = asked.structured_content["id"]
    async with httpx.AsyncClient(headers={"Authorization": f"Bearer {teorema.tokens['alice']}"}) as http:
        shared = await http.post(f"{teorema.url}/api/questions/{question}/share", json={"visibility": "users"})
    assert shared.status_code == 200
    async with over_http(teorema, "bob") as reader:
        with anyio.move_on_after(3):  # the reader's client gives up
            await reader.call_tool("get_question", {"question_id": question, "wait": True})
        refused = await reader.call_tool("cancel_question", {"question_id": question})
    assert refused.is_error  # may read, may not cancel
    assert await status_of(teorema, question) == "running"
    await until_status(teorema, question, "done")


async def test_a_call_that_asked_for_no_progress_returns_within_the_bound_and_says_how_to_follow(
    teorema, fake_provider
):
    """Issue 50: a silent call held open for minutes met the client's 60 s timeout."""
    slow_voices(fake_provider)
    bounded = teorema.env | {"TEOREMA_MCP_WAIT_SECONDS": "1"}

    async def progress(done: float, total: float | None, message: str | None) -> None: ...

    async with mcp_stdio_session(bounded, "alice") as session:
        asked = await session.call_tool("ask_panel", {"question": QUESTION})
        question = asked.structured_content["id"]
        assert asked.structured_content["status"] == "running"
        assert f"For the verdict, call get_question with question_id {question} and wait true." in (
            asked.content[0].text
        )
        waited = await session.call_tool("get_question", {"question_id": question, "wait": True})
        assert waited.structured_content["status"] == "running"
        followed = await session.call_tool(
            "get_question", {"question_id": question, "wait": True}, progress_callback=progress
        )
    assert followed.structured_content["status"] == "done"  # with progress, to the end
    assert followed.structured_content["verdict"] == "Use read replicas."


async def test_cancel_question_stops_the_askers_run_and_each_voice_keeps_its_words(teorema, fake_provider):
    slow_voices(fake_provider)
    async with over_http(teorema) as session:
        asked = await session.call_tool("ask_panel", {"question": QUESTION, "wait": False})
        question = asked.structured_content["id"]
        deadline = time.monotonic() + 20
        while not teorema.query(
            "SELECT 1 FROM debates_contribution c JOIN debates_round r ON c.round_id = r.id WHERE r.question_id = ?",
            question,
        ) and not fake_provider.requests_for("model-alpha"):
            assert time.monotonic() < deadline, "no voice started"
            await anyio.sleep(0.2)
        await anyio.sleep(1.0)  # the voices are writing
        cancelled = await session.call_tool("cancel_question", {"question_id": question})
        assert not cancelled.is_error
        assert cancelled.content[0].text.startswith("Cancelling: the panel stops after the calls in flight.")
        await until_status(teorema, question, "cancelled")
        again = await session.call_tool("cancel_question", {"question_id": question})
    assert again.content[0].text.startswith("It had already finished.")
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
    async with over_http(teorema, "root") as session:
        report = (await session.call_tool("health", {})).structured_content
        unprobed = (await session.call_tool("health", {"probe": False})).structured_content
    assert report["ok"] is True
    assert report["providers"] == [
        {"name": "Fake house", "key": "present", "reachable": True, "said": report["providers"][0]["said"]}
    ]
    assert "answered" in report["providers"][0]["said"]
    assert report["panels"][0]["estimated_seconds"] >= 0
    assert "reachable" not in unprobed["providers"][0]


async def test_only_staff_ask_the_providers_and_a_minute_of_callers_asks_each_once(teorema, scripted):
    """Issue 41: health made a paid provider call per call, for any token, and showed its errors to all."""
    async with over_http(teorema, "bob") as session:
        report = (await session.call_tool("health", {})).structured_content
    assert report["note"].startswith("Whether each provider answers is checked for staff only")
    assert all("reachable" not in entry and "said" not in entry for entry in report["providers"])
    assert not scripted.requests  # no provider was called for a non-staff caller
    async with over_http(teorema, "root") as session:
        reports = [(await session.call_tool("health", {})).structured_content for _ in range(3)]
    assert all(r["providers"][0]["reachable"] for r in reports)
    assert len(scripted.requests) <= 1  # asked once at most (a model list costs no request here), then kept


@pytest.mark.parametrize(
    ("arguments", "words"),
    [
        ({"question": QUESTION, "panle": "house"}, "ask_panel takes no argument 'panle': its arguments are question,"),
        ({"question": QUESTION, "deadline": 20.5}, "'deadline' must be a whole number or null, not the number 20.5."),
        ({"question": QUESTION, "deadline": "300"}, "'deadline' must be a whole number or null, not the string '300'."),
        ({"question": QUESTION, "options": ["a", 2]}, "'options' must be a list of strings, not a list."),
        ({"question": QUESTION, "wait": "yes"}, "'wait' must be true or false, not the string 'yes'."),
        ({"context": "x"}, "ask_panel needs 'question'."),
    ],
)
async def test_arguments_are_checked_in_teoremas_words_before_anything_runs(teorema, fake_provider, arguments, words):
    before = newest(teorema)
    async with over_http(teorema) as session:
        refused = await session.call_tool("ask_panel", arguments)
    assert refused.is_error
    assert words in refused.content[0].text
    assert "pydantic" not in refused.content[0].text.lower()
    assert newest(teorema) == before
    assert not fake_provider.requests


@pytest.mark.parametrize("method", ["GET", "DELETE"])
async def test_a_stateless_server_answers_get_and_delete_with_405(teorema, method):
    """Issue 41: GET /mcp opened an event stream that carried nothing and never ended."""
    async with httpx.AsyncClient(timeout=5) as http:
        answer = await http.request(
            method,
            f"{teorema.url}/mcp",
            headers={"Authorization": f"Bearer {teorema.tokens['alice']}", "Accept": "text/event-stream"},
        )
    assert answer.status_code == 405
    assert answer.headers["Allow"] == "POST"
    assert "stateless" in answer.json()["error"]["message"]
