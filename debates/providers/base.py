"""The one provider interface: values in, an async stream of events out.

Every wire protocol module turns one HTTP (or local) call into the same events, so the
engine never knows which provider it is talking to.
"""

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields
from decimal import Decimal
from enum import StrEnum
from typing import Any


class SearchTool(StrEnum):
    """How an endpoint searches the web when a voice may (each provider's own server-side tool;
    Teorema itself fetches nothing)."""

    NONE = ""  # this server has no web search
    OPENAI = "openai"  # Chat Completions ``web_search_options``, on a search model
    RESPONSES = "responses"  # the Responses API's ``web_search`` tool, on most of OpenAI's models
    OPENROUTER = "openrouter"  # OpenRouter's ``web`` plugin
    PERPLEXITY = "perplexity"  # built in: it always searches unless ``disable_search`` is sent
    ANTHROPIC = "anthropic"  # the server-side ``web_search`` tool
    GEMINI = "gemini"  # the ``google_search`` grounding tool
    CLI = "cli"  # a command-line voice's own search tool (Claude Code's WebSearch, Gemini CLI's google_web_search)


@dataclass(frozen=True)
class Endpoint:
    """A provider as the call needs it (a snapshot of the Provider row, key decrypted)."""

    name: str
    wire: str  # "openai" | "responses" | "anthropic" | "gemini" | "local" | "cli"
    base_url: str = ""
    api_key: str = field(default="", repr=False)
    connect_timeout: float = 10.0
    stall_timeout: float = 60.0
    total_timeout: float = 600.0
    max_retries: int = 2
    search: SearchTool = SearchTool.NONE
    # A command-line voice (wire "cli"): which CLI it is (a preset's key: "claude-code", "command"…) and
    # the program to run, with its arguments (empty: the preset's own program).
    cli: str = ""
    command: tuple[str, ...] = ()


@dataclass(frozen=True)
class Structure:
    """A JSON Schema the reply must follow, asked for natively where the wire has a way (OpenAI
    ``response_format``, Gemini ``responseSchema``, an Anthropic tool the model must call)."""

    name: str
    schema: str  # the JSON Schema as JSON text: a frozen value stays hashable


@dataclass(frozen=True)
class Voice:
    """One model on one endpoint, with its sampling settings and prices ($ per 1M tokens)."""

    name: str
    model: str
    endpoint: Endpoint
    temperature: float = 0.7
    max_tokens: int = 1500
    price_in: Decimal = Decimal("0")
    price_out: Decimal = Decimal("0")
    # Ask for a JSON object where the wire has a mode for it (OpenAI, Gemini, llama.cpp);
    # Anthropic has none, so there the prompt alone asks for JSON.
    json_output: bool = False
    structure: Structure | None = None  # a JSON Schema the reply must follow
    search: bool = False  # this call may search the web, with the endpoint's own tool
    price_search: Decimal = Decimal("0")  # $ per 1,000 searches, where the provider bills them
    # What the model reads natively besides text (the roster freezes both: providers/catalog.py's
    # guess from the model's id, or the panelist's own setting); else it gets a file's text.
    vision: bool = False
    pdf: bool = False


@dataclass(frozen=True)
class Part:
    """A file sent as the wire's own part beside a message's text: an image, or a PDF document."""

    kind: str  # "image" | "pdf"
    name: str
    media_type: str
    data: bytes = field(repr=False)


@dataclass(frozen=True)
class Message:
    role: str  # "system" | "user" | "assistant"
    content: str
    parts: tuple[Part, ...] = ()  # sent before the text, each wire in its own shape


def split_system(messages: list[Message]) -> tuple[str, list[Message]]:
    """The system prompt (joined) and the conversation, for wires that carry them apart."""
    system = "\n\n".join(m.content for m in messages if m.role == "system")
    return system, [m for m in messages if m.role != "system"]


class Fault(StrEnum):
    AUTH = "auth"
    RATE_LIMITED = "rate_limited"
    OVERLOADED = "overloaded"
    SERVER = "server"
    BAD_REQUEST = "bad_request"
    CONNECT_TIMEOUT = "connect_timeout"
    CONNECT = "connect"
    STALL = "stall"
    TIMEOUT = "timeout"
    DROPPED = "dropped"
    MALFORMED = "malformed"
    EMPTY = "empty"
    BLOCKED = "blocked"  # the provider refused the content (safety); retrying cannot help
    UNAVAILABLE = "unavailable"  # the embedded model or a CLI cannot run here (package or program missing)
    USAGE_LIMIT = "usage_limit"  # a subscription's usage limit or an account's credit is spent: retrying cannot help


TRANSIENT = frozenset(
    {
        Fault.RATE_LIMITED,
        Fault.OVERLOADED,
        Fault.SERVER,
        Fault.CONNECT_TIMEOUT,
        Fault.CONNECT,
        Fault.STALL,
        Fault.DROPPED,
        Fault.MALFORMED,
        Fault.EMPTY,
    }
)


@dataclass(frozen=True)
class Attempt:
    """One try of a call, recorded on the contribution whatever its outcome."""

    number: int
    latency_ms: int  # from the start of generation: the time queued for a shared model is apart
    error: str = ""
    fault: str = ""
    queued_ms: int = 0


class ProviderError(Exception):
    """A call that failed for good, in words a user can act on."""

    def __init__(
        self,
        fault: Fault,
        message: str,
        *,
        status: int | None = None,
        retry_after: float | None = None,
        attempts: tuple[Attempt, ...] = (),
    ) -> None:
        super().__init__(message)
        self.fault = fault
        self.message = message
        self.status = status
        self.retry_after = retry_after
        self.attempts = attempts
        self.spent = Spent()  # what the last attempt cost before it failed (set where the call is made)

    @property
    def transient(self) -> bool:
        return self.fault in TRANSIENT


# Completion.finish_reason: "stop" (the model ended its answer) or TRUNCATED (the token limit cut
# it off: OpenAI "length", Anthropic "max_tokens", Gemini "MAX_TOKENS"); anything else is the
# provider's own reason in lower case ("content_filter", "safety", "refusal").
STOP = "stop"
TRUNCATED = "length"
# Reasoning models think inside the output budget: they get this much beyond max_tokens (the
# answer's budget), or they return an answer cut off or empty. Only thinking spends it.
THINKING_ALLOWANCE = 4096


@dataclass(frozen=True)
class Source:
    """What a voice cites, or looked up, read from whichever wire brought it, in one shape.

    A web page (``url``) or an attached document (``document``, and its ``page`` where the wire
    gives one); ``quote``: the text the wire says was taken from it; ``start``/``end``: the
    characters of the answer it supports (None where the wire gives no span). ``cited`` is False
    for a page the voice looked up that no part of its answer points to. ``number``: the number the
    answer itself gives it, where the wire numbers its sources in the text (Perplexity's "[3]").
    """

    url: str = ""
    title: str = ""
    quote: str = ""
    start: int | None = None
    end: int | None = None
    document: str = ""
    page: int | None = None
    cited: bool = True
    number: int | None = None

    @property
    def key(self) -> str:
        """What makes two citations one footnote: the page, or the document and its page."""
        return self.url or f"{self.document}#{self.page or ''}"

    def as_dict(self) -> dict[str, Any]:
        """As stored (JSON): only the fields the wire gave."""
        defaults = Source()
        return {name: value for name, value in asdict(self).items() if value != getattr(defaults, name)}

    @classmethod
    def from_dict(cls, stored: Mapping[str, Any] | str) -> "Source":
        """A stored source; a bare string is a URL (what contributions stored before sources had a shape)."""
        if isinstance(stored, str):
            return cls(url=stored)
        known = {f.name for f in fields(cls)}
        return cls(**{name: value for name, value in stored.items() if name in known})


@dataclass(frozen=True)
class Usage:
    """How one attempt ended, as the provider reported it (None where it said nothing).

    ``searches``: the web searches the provider made for it, as it bills them."""

    tokens_in: int | None
    tokens_out: int | None
    finish_reason: str
    searches: int = 0
    cost: Decimal | None = None  # what the provider itself says the call cost (a CLI that reports it)
    thought: str = ""  # the summary of its reasoning a provider gave with the answer, no part of it


@dataclass(frozen=True)
class Cited:
    """Sources read from the stream, as they come (added to those before; a retry voids them)."""

    sources: tuple[Source, ...]


@dataclass(frozen=True)
class Queued:
    """The call waits for a model that runs one generation at a time (the embedded one).

    ``position`` counts the generation running now as 1, so the first one waiting is 2 of ``of``.
    """

    position: int
    of: int


@dataclass(frozen=True)
class Started:
    """A call that was queued starts generating now, after ``queued_ms`` in line; other calls start at once."""

    queued_ms: int


@dataclass(frozen=True)
class Chunk:
    """A piece of answer text, in order."""

    text: str


@dataclass(frozen=True)
class Spent:
    """What an attempt that did not complete cost: a provider bills what it streamed before a failure or a
    cancel. From the provider's usage where it came, else estimated (and marked so)."""

    tokens_in: int = 0
    tokens_out: int = 0
    estimated: bool = False
    cost: Decimal = Decimal("0")


@dataclass(frozen=True)
class Retrying:
    """The previous attempt failed and another starts; text already streamed is void, but was paid for."""

    attempt: int
    reason: str
    discard: bool  # True when the failed attempt had already streamed text or read sources
    spent: Spent = Spent()


@dataclass(frozen=True)
class Completion:
    """The end of a successful call: the whole text, usage, cost and every attempt."""

    text: str
    tokens_in: int
    tokens_out: int
    tokens_estimated: bool
    finish_reason: str
    cost: Decimal
    latency_ms: int
    attempts: tuple[Attempt, ...]
    sources: tuple[Source, ...] = ()
    searches: int = 0
    thought: str = ""  # the provider's summary of the model's reasoning (Usage.thought)


StreamEvent = Queued | Started | Chunk | Cited | Retrying | Completion
