"""Qwen Code (``@qwen-code/qwen-code``) as a panelist: ``qwen … --output-format stream-json
--include-partial-messages``, our system prompt in ``--system-prompt``.

It prints Claude Code's events (``claude.Stream``). Its switches: no core tool, and the tools it
registers besides them (sub-agents, skills, deferred tool calls) excluded by name; no MCP server or
extension; its system settings (``QWEN_CODE_SYSTEM_SETTINGS_PATH``, over the user's) turn off the
memory agent that would write files after the answer, telemetry and usage statistics. A provider's
key goes in ``OPENAI_API_KEY`` with ``--auth-type openai``; else the user's own login (``~/.qwen``).
"""

import json
import os

from debates.providers.base import Endpoint
from debates.providers.cli.base import Call, Flavour, Login, home, keyed_login, notes_file
from debates.providers.cli.claude import Stream
from debates.providers.cli.sandbox import Invocation, Scratch

SETTINGS_FILE = "qwen-settings.json"
ARGV_CHARS = 100_000
# Registered whatever the core tools: each could reach a shell or a file through another tool.
EXCLUDED = (
    "agent", "skill", "tool_call", "tool_search", "get_goal", "update_goal", "list_agents", "send_message",
    "report_findings", "record_artifact", "enter_worktree", "exit_worktree", "task_stop", "web_fetch",
    "run_shell_command", "edit", "write_file", "notebook_edit", "cron_create", "cron_delete", "cron_list",
    "loop_wakeup", "read_mcp_resource", "zoom_image",
)  # fmt: skip
SETTINGS = {
    "memory": {"enableManagedAutoMemory": False, "enableManagedAutoDream": False},
    "telemetry": {"enabled": False},
    "privacy": {"usageStatisticsEnabled": False},
    "general": {"enableAutoUpdate": False},
}


def invocation(call: Call, scratch: Scratch) -> Invocation:
    prompt = call.prompt + notes_file(call)
    short = len(prompt) <= ARGV_CHARS
    argv = [*([prompt] if short else []), "--output-format", "stream-json", "--include-partial-messages"]
    argv += ["--system-prompt", call.system, *(["-m", call.model] if call.model else [])]
    argv += ["--core-tools", "", *(f"--exclude-tools={name}" for name in EXCLUDED)]
    argv += ["-e", "none", "--chat-recording", "false", "--max-session-turns", "1"]
    if call.endpoint.api_key or os.environ.get("OPENAI_API_KEY"):
        argv += ["--auth-type", "openai"]
    env = {"QWEN_CODE_SYSTEM_SETTINGS_PATH": str(scratch.control / SETTINGS_FILE)}
    if call.endpoint.base_url:
        env["OPENAI_BASE_URL"] = call.endpoint.base_url
    control = {SETTINGS_FILE: json.dumps(SETTINGS)}
    return Invocation(tuple(argv), env, stdin=None if short else prompt, control=control)


def login(endpoint: Endpoint) -> Login:
    return keyed_login(endpoint, ("OPENAI_API_KEY",), (home(".qwen", "oauth_creds.json"),), "Qwen Code")


FLAVOUR = Flavour(
    key="qwen-code",
    label="Qwen Code",
    program="qwen",
    install="npm install -g @qwen-code/qwen-code",
    family="qwen",
    model="qwen3-coder-plus",
    models=("qwen3-coder-plus",),
    invocation=invocation,
    reader=Stream,
    login=login,
    key_variable="OPENAI_API_KEY",
    passes=("OPENAI_MODEL",),
)
