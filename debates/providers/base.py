"""The one provider interface: values in, an async stream of events out.

Every wire protocol module turns one HTTP (or local) call into the same events, so the
engine never knows which provider it is talking to.
"""

from dataclasses import dataclass, field
from decimal import Decimal
from enum import StrEnum


@dataclass(frozen=True)
class Endpoint:
    """A provider as the call needs it (a snapshot of the Provider row, key decrypted)."""

    name: str
    wire: str  # "openai" | "anthropic" | "gemini" | "local"
    base_url: str = ""
    api_key: str = field(default="", repr=False)
    connect_timeout: float = 10.0
    stall_timeout: float = 60.0
    total_timeout: float = 600.0
    max_retries: int = 2
    citations: bool = False


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
    UNAVAILABLE = "unavailable"  # the embedded model cannot run here (package missing)


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
class Usage:
    """How one attempt ended, as the provider reported it (None where it said nothing)."""

    tokens_in: int | None
    tokens_out: int | None
    finish_reason: str
    citations: tuple[str, ...] = ()


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
    discard: bool  # True when the failed attempt had already streamed text
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
    citations: tuple[str, ...] = ()


StreamEvent = Queued | Started | Chunk | Retrying | Completion
