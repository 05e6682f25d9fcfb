"""Gemini CLI (``@google/gemini-cli``) as a panelist: ``gemini -p … --output-format stream-json``.

It has no flag for a system prompt: ``GEMINI_SYSTEM_MD`` names a file that replaces its own. Its
switches come as system settings (``GEMINI_CLI_SYSTEM_SETTINGS_PATH``), which override the user's:
no core tool but ``google_web_search`` where the voice may search, no MCP server, extension, skill
or hook, no telemetry or update check. The user's login (``~/.gemini``) is its own; a provider's key
goes in ``GEMINI_API_KEY``.

Gemini CLI reads a system settings file only when the file and every directory above it belong to
root and no group or other user may write them; otherwise it skips the file with a warning and runs
with its own tools. Teorema checks the same rule first (``unread_settings``) and does not run it
where its settings would be skipped: a panelist whose tools are on is an agent.
"""

import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from debates.providers.base import Endpoint, Fault, ProviderError, Usage
from debates.providers.cli import sandbox
from debates.providers.cli.base import Call, Flavour, Item, JsonLines, Login, home, keyed_login, notes_file
from debates.providers.cli.sandbox import Invocation, Scratch

SEARCH_TOOL = "google_web_search"
LOOP = "Loop detected"  # its loop detection's warning: it stops the model mid-answer
SETTINGS_FILE, SYSTEM_FILE = "gemini-settings.json", "gemini-system.md"
ARGV_CHARS = 100_000


def settings(call: Call) -> dict[str, Any]:
    keyed = bool(call.endpoint.api_key or os.environ.get("GEMINI_API_KEY"))
    return {
        "tools": {"core": [SEARCH_TOOL] if call.voice.search else []},
        "admin": {"mcp": {"enabled": False}, "extensions": {"enabled": False}, "skills": {"enabled": False}},
        "hooksConfig": {"enabled": False},
        "skills": {"enabled": False},
        "telemetry": {"enabled": False},
        "privacy": {"usageStatisticsEnabled": False},
        "general": {"enableAutoUpdate": False, "enableAutoUpdateNotification": False},
        # A key given: the key's way in (a base URL alone would pick the "gateway" login it refuses).
        **({"security": {"auth": {"selectedType": "gemini-api-key"}}} if keyed else {}),
    }


def unread_settings(directory: Path) -> str:
    """Why Gemini CLI would skip a settings file Teorema writes in ``directory`` ("" : it reads it)."""
    if os.geteuid() != 0:
        return "the file would belong to this user, not root, so Gemini CLI would skip it"
    for folder in (directory, *directory.parents):
        mode = folder.stat()
        if mode.st_uid != 0:
            return f"{folder} does not belong to root"
        if mode.st_mode & 0o022:
            return f"{folder} may be written by a group or others"
    return ""


def refused(why: str) -> str:
    return (
        "Gemini CLI would not read Teorema's settings, which switch its tools off, so it is not run: "
        f"{why} (it reads a system settings file only from directories owned by root that no one else "
        "may write; set TEOREMA_CLI_SCRATCH to such a directory, or run the worker as root)"
    )


def unable() -> str:
    """Why no call could run here (its settings would be skipped), said before one is tried: the scratch
    folder's nearest existing folder stands for the private ones each call makes under it."""
    folder = sandbox.SETTINGS.scratch
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    return refused(why) if (why := unread_settings(folder)) else ""


def invocation(call: Call, scratch: Scratch) -> Invocation:
    if why := unread_settings(scratch.control):
        raise ProviderError(Fault.UNAVAILABLE, refused(why))
    prompt = call.prompt + notes_file(call)
    short = len(prompt) <= ARGV_CHARS
    argv = ["-p", prompt if short else " ", "--output-format", "stream-json", "-e", "none"]
    argv += ["-m", call.model] if call.model else []
    env = {
        "GEMINI_CLI_TRUST_WORKSPACE": "true",
        "GEMINI_CLI_SYSTEM_SETTINGS_PATH": str(scratch.control / SETTINGS_FILE),
        "GEMINI_SYSTEM_MD": str(scratch.control / SYSTEM_FILE),
    }
    if call.endpoint.base_url:
        env["GOOGLE_GEMINI_BASE_URL"] = call.endpoint.base_url
    control = {SETTINGS_FILE: json.dumps(settings(call)), SYSTEM_FILE: call.system or " "}
    return Invocation(tuple(argv), env, stdin=None if short else prompt, control=control)


class Stream(JsonLines):
    """``stream-json``: an init, the messages (the assistant's as deltas), tool events, errors, the result."""

    def event(self, event: dict[str, Any]) -> Iterable[Item]:
        match event:
            case {"type": "message", "role": "assistant", "content": str(text)}:
                return self.chunk(text)
            case {"type": "error"}:
                return self.error(event)
            case {"type": "result"}:
                return self.result(event)
        return []

    def error(self, event: dict[str, Any]) -> list[Item]:
        said = str(event.get("message") or event)
        if said.startswith(LOOP):  # a warning, then a "success" of what it wrote so far: no whole answer
            return self.fail(f"its answer repeated itself and it stopped it ({said})")
        if event.get("severity") in ("warning", "info"):
            return []
        return self.fail(said)

    def result(self, event: dict[str, Any]) -> list[Item]:
        if event.get("status") not in (None, "success"):
            error = event.get("error") or {}
            return self.fail(str(error.get("message") if isinstance(error, dict) else error), Fault.SERVER)
        stats = event.get("stats") or {}
        return [Usage(stats.get("input_tokens"), stats.get("output_tokens"), "stop")]


def login(endpoint: Endpoint) -> Login:
    return keyed_login(
        endpoint,
        ("GEMINI_API_KEY", "GOOGLE_API_KEY"),
        (home(".gemini", "oauth_creds.json"),),
        "Gemini CLI",
    )


FLAVOUR = Flavour(
    key="gemini-cli",
    label="Gemini CLI",
    program="gemini",
    install="npm install -g @google/gemini-cli",
    family="gemini",
    model="gemini-2.5-pro",
    models=("gemini-2.5-pro", "gemini-2.5-flash"),
    invocation=invocation,
    reader=Stream,
    login=login,
    key_variable="GEMINI_API_KEY",
    passes=("GOOGLE_API_KEY", "GOOGLE_CLOUD_PROJECT", "GOOGLE_CLOUD_LOCATION", "GOOGLE_GENAI_USE_VERTEXAI"),
    unable=unable,
)
