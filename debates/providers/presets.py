"""Wire protocols and the provider presets that fill in a base URL."""

from dataclasses import dataclass
from decimal import Decimal
from urllib.parse import urlsplit

from debates.lib.labelled import Labelled
from debates.providers.base import SearchTool


class Wire(Labelled):
    """The wire protocol a provider speaks (one module each in debates/providers/)."""

    OPENAI = "openai", "OpenAI chat completions (and compatibles)"
    RESPONSES = "responses", "OpenAI Responses API"
    ANTHROPIC = "anthropic", "Anthropic Messages"
    GEMINI = "gemini", "Google Gemini generateContent"
    LOCAL = "local", "Embedded local model (llama.cpp)"
    CLI = "cli", "A command on this machine (Claude Code, Gemini CLI, Qwen Code, Codex…)"


@dataclass(frozen=True)
class Preset:
    label: str
    wire: Wire
    base_url: str
    needs_key: bool = True
    # The provider's own web search, and what it bills for 1,000 searches (a new panelist's price):
    # OpenAI $25 a 1,000 calls of a search model (gpt-5-search-api $10), OpenRouter's plugin $4 a
    # 1,000 results (5 a search), Perplexity a request fee from $5 a 1,000, Anthropic $10 a 1,000
    # searches, Gemini 3 $14 a 1,000 queries (Gemini 2: $35 a 1,000 grounded prompts), the Responses
    # API's web_search tool $10 a 1,000 calls.
    search: SearchTool = SearchTool.NONE
    search_price: Decimal = Decimal("0")


PRESETS: dict[str, Preset] = {
    "openai": Preset(
        "OpenAI", Wire.OPENAI, "https://api.openai.com/v1", search=SearchTool.OPENAI, search_price=Decimal(25)
    ),
    # OpenAI's models that Chat Completions does not serve (catalog.RESPONSES_ONLY), and every other one.
    "openai_responses": Preset(
        "OpenAI (Responses API)",
        Wire.RESPONSES,
        "https://api.openai.com/v1",
        search=SearchTool.RESPONSES,
        search_price=Decimal(10),
    ),
    "deepseek": Preset("DeepSeek", Wire.OPENAI, "https://api.deepseek.com/v1"),
    "mistral": Preset("Mistral", Wire.OPENAI, "https://api.mistral.ai/v1"),
    "xai": Preset("xAI (Grok)", Wire.OPENAI, "https://api.x.ai/v1"),
    "perplexity": Preset(
        "Perplexity", Wire.OPENAI, "https://api.perplexity.ai", search=SearchTool.PERPLEXITY, search_price=Decimal(5)
    ),
    "openrouter": Preset(
        "OpenRouter",
        Wire.OPENAI,
        "https://openrouter.ai/api/v1",
        search=SearchTool.OPENROUTER,
        search_price=Decimal(20),
    ),
    "ollama": Preset("Ollama", Wire.OPENAI, "http://127.0.0.1:11434/v1", needs_key=False),
    "vllm": Preset("vLLM", Wire.OPENAI, "http://127.0.0.1:8000/v1", needs_key=False),
    "lmstudio": Preset("LM Studio", Wire.OPENAI, "http://127.0.0.1:1234/v1", needs_key=False),
    "llamacpp": Preset("llama.cpp server", Wire.OPENAI, "http://127.0.0.1:8080/v1", needs_key=False),
    "anthropic": Preset(
        "Anthropic", Wire.ANTHROPIC, "https://api.anthropic.com", search=SearchTool.ANTHROPIC, search_price=Decimal(10)
    ),
    "gemini": Preset(
        "Google Gemini",
        Wire.GEMINI,
        "https://generativelanguage.googleapis.com/v1beta",
        search=SearchTool.GEMINI,
        search_price=Decimal(14),
    ),
    "local": Preset("Embedded SmolLM2-135M (no key)", Wire.LOCAL, "", needs_key=False),
    # Coding-agent CLIs on this machine, on their own login (a key, if given, goes in the CLI's own
    # variable): debates/providers/cli/, docs/providers.md. Each searches with its own tool, where it has one.
    "claude-code": Preset("Claude Code (CLI)", Wire.CLI, "", needs_key=False, search=SearchTool.CLI),
    "gemini-cli": Preset("Gemini CLI", Wire.CLI, "", needs_key=False, search=SearchTool.CLI),
    "qwen-code": Preset("Qwen Code (CLI)", Wire.CLI, "", needs_key=False),
    "codex": Preset("Codex (CLI)", Wire.CLI, "", needs_key=False, search=SearchTool.CLI),
    "command": Preset("A command that reads a prompt and prints an answer", Wire.CLI, "", needs_key=False),
}
CLI_PRESETS = tuple(key for key, preset in PRESETS.items() if preset.wire == Wire.CLI)


# A server named by its host searches as its preset on that wire does, whether or not the preset was picked.
BY_HOST = (Wire.OPENAI, Wire.RESPONSES)
SEARCH_HOSTS = {(p.wire, urlsplit(p.base_url).hostname): p for p in PRESETS.values() if p.wire in BY_HOST and p.search}
WIRE_SEARCH = {Wire.ANTHROPIC: PRESETS["anthropic"], Wire.GEMINI: PRESETS["gemini"]}


def search_preset(preset: str, wire: str, base_url: str) -> Preset | None:
    """The preset whose web search a provider has: its own (on the preset's wire), else its host's
    (OpenAI on either of its wires, OpenRouter, Perplexity), else its wire's (every Anthropic and
    Gemini server has one); None: it has none."""
    found = PRESETS.get(preset)
    if found is not None and found.search and found.wire == (wire or found.wire):
        return found
    if wire in BY_HOST:
        return SEARCH_HOSTS.get((Wire(wire), urlsplit(base_url).hostname)) if base_url else None
    return WIRE_SEARCH.get(Wire(wire)) if wire in list(Wire) else None
