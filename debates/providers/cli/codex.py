"""Codex (``@openai/codex``) as a panelist: ``codex exec --json``.

Our system prompt goes in as ``developer_instructions``; its shell, its sub-agents, hooks, plugins,
apps, browser and computer use are disabled features, its sandbox is read-only and it never asks for
approval; it reads none of the user's config or rules (``--ignore-user-config --ignore-rules``; its
login, in ``CODEX_HOME``, still counts) and keeps no session (``--ephemeral``). A provider's base URL
becomes a model provider of its own, speaking the Responses API.

Its events: ``thread.started``, ``turn.started``, ``item.started``/``updated``/``completed`` (the
answer is an ``agent_message`` item), ``turn.completed`` with the usage, ``turn.failed``, ``error``.
"""

import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from debates.providers.base import Endpoint, Usage
from debates.providers.catalog import Sight
from debates.providers.cli.base import (
    NOISE_CHARS,
    Call,
    Flavour,
    Item,
    JsonLines,
    Login,
    home,
    keyed_login,
    notes_file,
)
from debates.providers.cli.sandbox import Invocation, Scratch

ARGV_CHARS = 100_000
KEY_VARIABLE = "CODEX_API_KEY"
DISABLED = (
    "shell_tool", "unified_exec", "hooks", "plugins", "apps", "browser_use", "computer_use", "in_app_browser",
    "multi_agent", "skill_mcp_dependency_install", "memories",
)  # fmt: skip


def toml(value: str) -> str:
    """A TOML basic string (a JSON string is one)."""
    return json.dumps(value)


def invocation(call: Call, scratch: Scratch) -> Invocation:
    prompt = call.prompt + notes_file(call)
    short = len(prompt) <= ARGV_CHARS
    argv = ["exec", "--json", "--skip-git-repo-check", "--ephemeral", "--ignore-user-config", "--ignore-rules"]
    argv += ["--sandbox", "read-only", "-c", 'approval_policy="never"', "--color", "never"]
    argv += [f"--disable={feature}" for feature in DISABLED]
    argv += ["-c", f'web_search="{"live" if call.voice.search else "disabled"}"']
    argv += ["-c", f"developer_instructions={toml(call.system)}", *(["-m", call.model] if call.model else [])]
    argv += [f"--image={path}" for path in call.files if path.suffix.lower() in (".png", ".jpg", ".jpeg", ".webp")]
    if call.endpoint.base_url:
        provider = "model_providers.teorema"
        argv += ["-c", 'model_provider="teorema"', "-c", f'{provider}.name="Teorema"']
        argv += ["-c", f"{provider}.base_url={toml(call.endpoint.base_url)}", "-c", f'{provider}.wire_api="responses"']
        argv += ["-c", f'{provider}.env_key="{KEY_VARIABLE}"']
    argv += ["--", prompt if short else "-"]
    return Invocation(tuple(argv), {}, stdin=None if short else prompt)


class Stream(JsonLines):
    """``codex exec --json``: the answer's items as they grow, the turn's usage or failure."""

    def __init__(self, label: str) -> None:
        super().__init__(label)
        self.items: dict[str, str] = {}  # each agent message's text so far, by item id

    def event(self, event: dict[str, Any]) -> Iterable[Item]:
        match event:
            case {"type": "item.started" | "item.updated" | "item.completed", "item": {"type": "agent_message"}}:
                return self.message(event["item"])
            case {"type": "turn.completed"}:
                return self.usage(event.get("usage") or {})
            case {"type": "turn.failed"}:
                return self.fail(str((event.get("error") or {}).get("message") or event))
            case {"type": "error", "message": str(said)} | {
                "type": "item.completed",
                "item": {"type": "error", "message": str(said)},
            }:
                # Also its warnings ("Model metadata … not found"): said only if the run fails.
                self.noise = f"{self.noise}{said}\n"[-NOISE_CHARS:]
        return []

    def message(self, item: dict[str, Any]) -> list[Item]:
        """What an agent message adds to what it said before (the items carry their whole text so far)."""
        key, text = str(item.get("id", "")), str(item.get("text") or "")
        before = self.items.get(key, "")
        self.items[key] = text
        added = text[len(before) :] if text.startswith(before) else text
        if added and not before and self.text:
            added = "\n\n" + added  # a second message is a new paragraph
        return self.chunk(added)

    def usage(self, usage: dict[str, Any]) -> list[Item]:
        return [Usage(usage.get("input_tokens"), usage.get("output_tokens"), "stop")]


def login(endpoint: Endpoint) -> Login:
    codex_home = Path(os.environ["CODEX_HOME"]) if os.environ.get("CODEX_HOME") else home(".codex")
    return keyed_login(endpoint, (KEY_VARIABLE, "OPENAI_API_KEY"), (codex_home / "auth.json",), "Codex")


FLAVOUR = Flavour(
    key="codex",
    label="Codex",
    program="codex",
    install="npm install -g @openai/codex",
    family="gpt",
    model="gpt-5-codex",
    models=("gpt-5-codex", "gpt-5"),
    invocation=invocation,
    reader=Stream,
    login=login,
    sight=Sight(vision=True, pdf=False),
    key_variable=KEY_VARIABLE,
    passes=("CODEX_HOME", "OPENAI_API_KEY"),
)
