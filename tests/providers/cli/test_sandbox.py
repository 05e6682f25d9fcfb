"""A CLI voice is a panelist, never an agent: it runs in an empty scratch directory of its own, reads
no standard input but its prompt, gets none of Teorema's secrets, finds the question's files there
read-only, and cannot run a command or write a file when the model asks it to."""

import json
import os
from dataclasses import replace
from pathlib import Path

import pytest

from debates.providers.base import Endpoint, Message, Part, ProviderError, Voice
from debates.providers.cli import gemini
from tests.fakes.clis import MODELS, cli_voice
from tests.fakes.provider_server import Script
from tests.fakes.tool_calls import ToolCall
from tests.providers.helpers import collect, completion

pytestmark = pytest.mark.usefixtures("cli_sandbox", "fast_retries")
SECRETS = {
    "SECRET_KEY": "django-secret-teorema-1234",
    "DATABASE_URL": "postgres://teorema:hunter2@127.0.0.1/teorema",
    "REDIS_URL": "redis://127.0.0.1:6379/0",
    "TEOREMA_FERNET_KEYS": "fernet-key-teorema",
    "OPENAI_API_KEY": "sk-openai-of-another-provider",
    "MISTRAL_API_KEY": "mistral-of-another-provider",
}


def command_voice(*command: str) -> Voice:
    endpoint = Endpoint(name="My command", wire="cli", cli="command", command=command, max_retries=0)
    return Voice(name="command", model="default", endpoint=endpoint)


async def answer(voice: Voice, messages: list[Message]) -> str:
    return completion(await collect(voice, messages)).text


async def test_a_cli_gets_none_of_teoremas_secrets_nor_other_providers_keys(monkeypatch):
    for name, value in SECRETS.items():
        monkeypatch.setenv(name, value)
    said = await answer(command_voice("sh", "-c", "env; echo done", "{prompt}"), [Message("user", "env")])
    assert not [value for value in SECRETS.values() if value in said]
    assert "HOME=" in said  # its login lives there


async def test_a_cli_runs_in_an_empty_directory_of_its_own_that_goes_when_the_call_ends(cli_sandbox):
    said = await answer(command_voice("sh", "-c", "pwd; ls -A | wc -l", "{prompt}"), [Message("user", "where?")])
    where, entries = said.split()
    assert Path(where).is_relative_to(cli_sandbox)
    assert entries == "0"
    assert not any(cli_sandbox.iterdir())


async def test_a_cli_reads_no_standard_input_but_its_prompt():
    silent = command_voice("sh", "-c", "cat; echo read-nothing", "{prompt}")
    assert await answer(silent, [Message("user", "hi")]) == "read-nothing\n"
    told = await answer(command_voice("cat"), [Message("system", "Be brief."), Message("user", "Is 7 prime?")])
    assert told == "Be brief.\n\nIs 7 prime?"


async def test_the_questions_files_are_in_its_directory_read_only_and_named_in_the_prompt():
    notes = Part("pdf", "report.pdf", "application/pdf", b"%PDF-1.4 the report")
    look = command_voice(
        "sh", "-c", 'printf "%s\\n" "$1"; cat report.pdf; echo; stat -c %a report.pdf', "-", "{prompt}"
    )
    said = await answer(look, [Message("user", "Read the report.", parts=(notes,))])
    assert "`report.pdf`" in said  # named
    assert "%PDF-1.4 the report" in said  # there
    assert said.split()[-1] == "444"  # read-only


# What each CLI calls its shell and its file writer, as the model would ask for them.
SHELL = {"claude-code": "Bash", "gemini-cli": "run_shell_command", "qwen-code": "run_shell_command"}
WRITER = {"claude-code": "Write", "gemini-cli": "write_file", "qwen-code": "write_file"}
REFUSED = {"claude-code": "No such tool available", "gemini-cli": "not found"}


@pytest.mark.parametrize("cli", ["claude-code", "gemini-cli", "qwen-code"])
@pytest.mark.parametrize("tool", ["shell", "writer"])
async def test_a_cli_told_to_run_a_command_or_write_a_file_cannot(fake_provider, tmp_path, cli, tool):
    marker = tmp_path / "pwned.txt"
    if tool == "shell":
        call = ToolCall(SHELL[cli], {"command": f"touch {marker}", "description": "make a file"})
    else:
        call = ToolCall(WRITER[cli], {"file_path": str(marker), "content": "pwned"})
    fake_provider.script(MODELS[cli], Script(tool_call=call), "I was not allowed to run anything.")
    voice = replace(
        cli_voice(fake_provider, cli), endpoint=replace(cli_voice(fake_provider, cli).endpoint, max_retries=0)
    )
    if cli == "qwen-code":  # one turn only: the turn a tool call would need is refused
        with pytest.raises(ProviderError, match="max session turns"):
            await collect(voice)
    else:
        assert completion(await collect(voice)).text == "I was not allowed to run anything."
        told = json.dumps(fake_provider.requests_for(MODELS[cli])[-1].body)
        assert REFUSED[cli] in told  # the CLI's own answer to the model: it has no such tool
    assert not marker.exists()


def test_gemini_cli_is_not_run_where_it_would_skip_teoremas_settings(tmp_path, monkeypatch):
    """Gemini CLI skips a system settings file under a directory others may write (/tmp is one), or
    one not owned by root, and then runs with its own tools: Teorema says so and does not run it."""
    assert "may be written by a group or others" in gemini.unread_settings(tmp_path)
    monkeypatch.setattr(gemini.os, "geteuid", lambda: 1000)
    assert "not root" in gemini.unread_settings(tmp_path)


@pytest.mark.skipif(os.geteuid() != 0, reason="Gemini CLI reads Teorema's settings only as root")
def test_gemini_cli_reads_the_settings_in_teoremas_own_scratch_directory(cli_sandbox):
    cli_sandbox.mkdir(mode=0o700, parents=True, exist_ok=True)
    assert gemini.unread_settings(cli_sandbox) == ""
