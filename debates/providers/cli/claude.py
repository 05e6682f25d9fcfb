"""Claude Code (``@anthropic-ai/claude-code``) as a panelist: ``claude -p … --output-format
stream-json --include-partial-messages --verbose``, our system prompt in ``--system-prompt``, no tools
but its web search where the voice may search, and none of the user's settings, MCP servers,
plugins, hooks or slash commands (``--safe-mode --setting-sources "" --strict-mcp-config``).

Its stream is also Qwen Code's (``qwen.py``), which prints the same events.
"""

import json
from collections.abc import Iterable
from decimal import Decimal
from typing import Any

from debates.providers.base import TRUNCATED, Endpoint, Usage
from debates.providers.catalog import Sight
from debates.providers.cli.base import Call, Flavour, Item, JsonLines, Login, home, keyed_login, notes_file
from debates.providers.cli.sandbox import Invocation, Scratch

ARGV_CHARS = 100_000  # a longer prompt goes on standard input (one argument may hold 128 KiB)
QUIET = {  # its own switches against telemetry, error reports and updates
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    "DISABLE_AUTOUPDATER": "1",
    "DISABLE_TELEMETRY": "1",
    "DISABLE_ERROR_REPORTING": "1",
}
SEARCH_TOOL = "WebSearch"
READ_FROM_CACHE = "cache_read_input_tokens"


def invocation(call: Call, scratch: Scratch) -> Invocation:
    prompt = call.prompt + notes_file(call) + "".join(f"\n@{path.name}" for path in call.files)
    argv = ["-p", *([prompt] if len(prompt) <= ARGV_CHARS else [])]
    argv += ["--output-format", "stream-json", "--include-partial-messages", "--verbose"]
    argv += ["--system-prompt", call.system, *(["--model", call.model] if call.model else [])]
    argv += ["--tools", SEARCH_TOOL if call.voice.search else ""]
    argv += ["--safe-mode", "--setting-sources", "", "--strict-mcp-config", "--disable-slash-commands"]
    argv += ["--no-session-persistence", "--permission-mode", "dontAsk"]
    env = dict(QUIET)
    if call.endpoint.base_url:
        env["ANTHROPIC_BASE_URL"] = call.endpoint.base_url
    return Invocation(tuple(argv), env, stdin=None if len(prompt) <= ARGV_CHARS else prompt)


class Stream(JsonLines):
    """``stream-json``: the init, each partial message's text deltas, the whole message, the result."""

    subscription = True  # until the init says which key it runs on

    def event(self, event: dict[str, Any]) -> Iterable[Item]:
        match event:
            case {"type": "system", "subtype": "init"}:
                return self.init(event)
            case {"type": "stream_event", "event": dict(inner)} if not event.get("parent_tool_use_id"):
                return self.partial(inner)
            case {"type": "assistant", "message": dict(message)}:
                return self.message(message, event)
            case {"type": "result"}:
                return self.result(event)
        return []

    def init(self, event: dict[str, Any]) -> list[Item]:
        # An API key's calls are billed at its price, which the result reports; a login's are the plan's.
        self.subscription = event.get("apiKeySource") in (None, "", "none")
        return []

    def partial(self, inner: dict[str, Any]) -> list[Item]:
        match inner:
            case {"type": "content_block_delta", "delta": {"type": "text_delta", "text": str(text)}}:
                return self.chunk(text)
        return []

    def message(self, message: dict[str, Any], event: dict[str, Any]) -> list[Item]:
        """The whole message: text only when no partial came (an older CLI), a failure when the CLI
        wrote it itself (its "<synthetic>" model: "Credit balance is too low", "Please run /login")."""
        text = "".join(b.get("text", "") for b in message.get("content", []) if isinstance(b, dict))
        if message.get("model") == "<synthetic>" or event.get("error"):
            return self.fail(text or str(event.get("error")))
        return [] if self.text else self.chunk(text)

    def result(self, event: dict[str, Any]) -> list[Item]:
        if event.get("is_error") or event.get("subtype", "success") != "success":
            said = event.get("result") or "; ".join(map(str, event.get("errors", []))) or str(event.get("subtype"))
            return self.fail(str(said))
        usage = event.get("usage") or {}
        tokens_in = sum(usage.get(k) or 0 for k in ("input_tokens", "cache_creation_input_tokens", READ_FROM_CACHE))
        searches = (usage.get("server_tool_use") or {}).get("web_search_requests") or 0
        cost = event.get("total_cost_usd")
        finish = TRUNCATED if event.get("stop_reason") == "max_tokens" else "stop"
        return [
            Usage(
                tokens_in if usage else None,
                usage.get("output_tokens"),
                finish,
                searches=int(searches),
                cost=None if self.subscription or cost is None else Decimal(str(cost)),
            )
        ]


def login(endpoint: Endpoint) -> Login:
    found = keyed_login(
        endpoint,
        ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN"),
        (home(".claude", ".credentials.json"),),
        "Claude Code",
    )
    try:
        account = not found.ready and json.loads(home(".claude.json").read_text()).get("oauthAccount")
    except (OSError, ValueError, AttributeError):
        account = None
    # An account without a credentials file: its login is in the system's keychain, which only a call can read.
    return Login(None, "Claude Code has an account; only a call can tell whether its login holds") if account else found


FLAVOUR = Flavour(
    key="claude-code",
    label="Claude Code",
    program="claude",
    install="npm install -g @anthropic-ai/claude-code",
    family="claude",
    model="sonnet",
    models=("sonnet", "opus", "haiku"),
    invocation=invocation,
    reader=Stream,
    login=login,
    sight=Sight(vision=True, pdf=False),  # a PDF it is handed by name reaches it unread: it gets the text
    key_variable="ANTHROPIC_API_KEY",
    passes=("CLAUDE_CONFIG_DIR", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN"),
)
