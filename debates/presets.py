"""Wire protocols and the provider presets that fill in a base URL."""

from dataclasses import dataclass

from debates.labelled import Labelled


class Wire(Labelled):
    """The wire protocol a provider speaks (one module each in debates/providers/)."""

    OPENAI = "openai", "OpenAI chat completions (and compatibles)"
    ANTHROPIC = "anthropic", "Anthropic Messages"
    GEMINI = "gemini", "Google Gemini generateContent"
    LOCAL = "local", "Embedded local model (llama.cpp)"


@dataclass(frozen=True)
class Preset:
    label: str
    wire: Wire
    base_url: str
    needs_key: bool = True
    # Perplexity returns sources next to the answer; we keep and show them.
    citations: bool = False


PRESETS: dict[str, Preset] = {
    "openai": Preset("OpenAI", Wire.OPENAI, "https://api.openai.com/v1"),
    "deepseek": Preset("DeepSeek", Wire.OPENAI, "https://api.deepseek.com/v1"),
    "mistral": Preset("Mistral", Wire.OPENAI, "https://api.mistral.ai/v1"),
    "xai": Preset("xAI (Grok)", Wire.OPENAI, "https://api.x.ai/v1"),
    "perplexity": Preset("Perplexity", Wire.OPENAI, "https://api.perplexity.ai", citations=True),
    "openrouter": Preset("OpenRouter", Wire.OPENAI, "https://openrouter.ai/api/v1"),
    "ollama": Preset("Ollama", Wire.OPENAI, "http://127.0.0.1:11434/v1", needs_key=False),
    "vllm": Preset("vLLM", Wire.OPENAI, "http://127.0.0.1:8000/v1", needs_key=False),
    "lmstudio": Preset("LM Studio", Wire.OPENAI, "http://127.0.0.1:1234/v1", needs_key=False),
    "llamacpp": Preset("llama.cpp server", Wire.OPENAI, "http://127.0.0.1:8080/v1", needs_key=False),
    "anthropic": Preset("Anthropic", Wire.ANTHROPIC, "https://api.anthropic.com"),
    "gemini": Preset("Google Gemini", Wire.GEMINI, "https://generativelanguage.googleapis.com/v1beta"),
    "local": Preset("Embedded SmolLM2-135M (no key)", Wire.LOCAL, "", needs_key=False),
}
