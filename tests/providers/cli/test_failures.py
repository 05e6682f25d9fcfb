"""Every way a CLI voice fails, each in words a person can act on, and none leaving a process behind:
not installed, not logged in, a non-zero exit, a status line instead of an answer, a usage limit, a
hang past the deadline, output past its bound, a cancel mid-answer (checked by PID)."""

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path

import pytest

from debates.providers import stream
from debates.providers.base import Chunk, Endpoint, Fault, Message, Voice
from debates.providers.cli import sandbox
from tests.fakes.clis import LABELS, MODELS, alive, cli_voice, processes_in
from tests.fakes.provider_server import Script
from tests.providers.helpers import failure
from tests.waiting import wait_for

pytestmark = pytest.mark.usefixtures("cli_sandbox", "fast_retries")


def command_voice(command: tuple[str, ...], **fields) -> Voice:
    endpoint = Endpoint(name="My command", wire="cli", cli="command", command=command, max_retries=0, **fields)
    return Voice(name="command", model="default", endpoint=endpoint)


@contextlib.asynccontextmanager
async def watched(root: Path) -> AsyncIterator[set[int]]:
    """Every process that works under ``root`` while the block runs, by PID."""
    seen: set[int] = set()

    async def watch() -> None:
        while True:
            seen.update(processes_in(root))
            await asyncio.sleep(0.05)

    watcher = asyncio.create_task(watch())
    try:
        yield seen
    finally:
        watcher.cancel()


def left_behind(pids: set[int]) -> set[int]:
    return {pid for pid in pids if alive(pid)}


async def none_left(pids: set[int]) -> None:
    """Every process of the call ends: a killed one once the kernel runs it, a moment on a loaded box
    (the patience only bounds a hung test; a process left running fails it)."""
    await wait_for(lambda: not left_behind(pids), f"the processes {sorted(pids)} to end", patience=15)


async def test_a_cli_not_installed_says_so_and_how_to_install_it(fake_provider, monkeypatch):
    monkeypatch.setattr(sandbox, "SETTINGS", replace(sandbox.SETTINGS, path=()))
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    error, _ = await failure(cli_voice(fake_provider, "claude-code"))
    assert error.fault == Fault.UNAVAILABLE
    assert error.message == (
        "Claude Code is not installed on this machine: no `claude` program "
        "(install it: npm install -g @anthropic-ai/claude-code)"
    )
    assert not fake_provider.requests


async def test_a_command_that_is_not_there_says_which():
    error, _ = await failure(command_voice(("no-such-program-teorema", "{prompt}")))
    assert error.fault == Fault.UNAVAILABLE
    assert "no `no-such-program-teorema` program" in error.message


@pytest.mark.parametrize(
    ("cli", "program"),
    [("claude-code", "claude"), ("gemini-cli", "gemini"), ("qwen-code", "qwen"), ("codex", "codex")],
)
async def test_a_cli_that_is_not_logged_in_is_not_started_and_says_how_to_log_in(
    fake_provider, cli_sandbox, cli, program
):
    voice = cli_voice(fake_provider, cli, api_key="")
    async with watched(cli_sandbox) as pids:
        error, _ = await failure(voice)
    assert error.fault == Fault.AUTH
    assert error.message.endswith(
        f"is installed but not logged in: run `{program}` once in a terminal (or give the provider an API key)"
    )
    assert not fake_provider.requests
    assert not pids


async def test_a_non_zero_exit_is_a_failure_with_the_clis_last_words_and_is_tried_again(fast_retries):
    voice = command_voice(
        ("sh", "-c", "echo 'loading the model…' >&2; echo 'segmentation fault in libfoo' >&2; exit 3")
    )
    error, _ = await failure(replace(voice, endpoint=replace(voice.endpoint, max_retries=1)))
    assert error.fault == Fault.SERVER
    assert error.message == "My command exited with status 3: segmentation fault in libfoo"
    assert [a.fault for a in error.attempts] == ["server", "server"]  # retried once, as a provider's 500 is


async def test_a_cli_whose_provider_says_the_credit_is_spent_says_so(fake_provider):
    fake_provider.script(
        MODELS["claude-code"], Script(status=400, error="Your credit balance is too low to access the Anthropic API.")
    )
    error, _ = await failure(cli_voice(fake_provider, "claude-code", max_retries=0))
    assert error.fault == Fault.USAGE_LIMIT
    assert error.message == "Claude Code's account has no credit left: “Credit balance is too low”"


@pytest.mark.parametrize(
    ("said", "fault", "words"),
    [
        ("Invalid API key · Please run /login", Fault.AUTH, "is not logged in, or its login or key was refused"),
        ("Claude AI usage limit reached|1893456000", Fault.USAGE_LIMIT, "it resets at 00:00 UTC on 01 Jan 2030"),
        ("You've hit your limit · resets 3pm (Europe/Rome)", Fault.USAGE_LIMIT, "it resets 3pm (Europe/Rome)"),
    ],
)
@pytest.mark.parametrize("cli", ["qwen-code", "codex"])
async def test_a_status_line_instead_of_an_answer_is_a_failure_in_its_own_words(fake_provider, cli, said, fault, words):
    fake_provider.script(MODELS[cli], said)
    error, _events = await failure(cli_voice(fake_provider, cli, max_retries=0))
    assert error.fault == fault
    assert words in error.message
    assert said in error.message
    assert not error.transient  # no retry can log it in or lift its limit


@pytest.mark.parametrize("cli", ["claude-code", "codex"])
async def test_a_cli_that_hangs_is_stopped_at_its_deadline_with_its_whole_process_group(
    fake_provider, cli_sandbox, cli
):
    fake_provider.script(MODELS[cli], Script(fault="hang"))
    async with watched(cli_sandbox) as pids:
        error, _ = await failure(cli_voice(fake_provider, cli, total_timeout=4.0, max_retries=0))
    assert error.fault == Fault.TIMEOUT
    assert error.message == f"{LABELS[cli]} did not finish within 4s"
    assert pids
    await none_left(pids)


@pytest.mark.parametrize("cli", ["claude-code", "gemini-cli", "qwen-code", "codex"])
async def test_a_cli_that_writes_past_its_bound_is_stopped(fake_provider, cli_sandbox, monkeypatch, cli):
    monkeypatch.setattr(sandbox, "SETTINGS", replace(sandbox.SETTINGS, output_bytes=50_000))
    fake_provider.script(MODELS[cli], " ".join(f"word{n}" for n in range(12000)))  # no loop: Gemini CLI cuts one short
    async with watched(cli_sandbox) as pids:
        error, events = await failure(cli_voice(fake_provider, cli, max_retries=0))
    assert error.fault == Fault.MALFORMED
    assert error.message == f"{LABELS[cli]} wrote more than 48 KB: it was stopped"
    streamed = any(isinstance(e, Chunk) for e in events)  # what it said before stays shown until the failure
    # Codex prints its answer once, whole, and Claude Code's partial messages may come after the bound is
    # passed: only the Node CLIs are sure to have streamed words first.
    assert streamed or cli in {"codex", "claude-code"}
    assert pids
    await none_left(pids)


@pytest.mark.parametrize("cli", ["claude-code", "gemini-cli", "qwen-code", "codex"])
async def test_a_cancel_mid_answer_leaves_no_process_behind(fake_provider, cli_sandbox, cli):
    fake_provider.script(MODELS[cli], Script(answer="slowly " * 200, tokens_per_second=10))
    first = asyncio.Event()

    async def call() -> None:
        async for event in stream(cli_voice(fake_provider, cli), [Message("user", "Tell me slowly.")]):
            if isinstance(event, Chunk):
                first.set()

    async with watched(cli_sandbox) as pids:
        task = asyncio.create_task(call())
        await asyncio.wait_for(first.wait(), 60)
        assert left_behind(pids)  # it is running
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
    await none_left(pids)
    assert not any(cli_sandbox.iterdir())  # its scratch directory went with it


async def test_an_answer_gemini_cli_cuts_short_as_a_loop_is_no_answer_and_is_tried_again(fake_provider):
    # Its loop detection stops the model with a warning, then reports success with what it had written.
    fake_provider.script(MODELS["gemini-cli"], "word " * 3000, "word " * 3000)
    error, _ = await failure(cli_voice(fake_provider, "gemini-cli", max_retries=1))
    assert error.fault == Fault.SERVER
    assert error.message == (
        "Gemini CLI failed: its answer repeated itself and it stopped it (Loop detected, stopping execution)"
    )
    assert [a.fault for a in error.attempts] == ["server", "server"]  # asked again, as a provider's 500 is
