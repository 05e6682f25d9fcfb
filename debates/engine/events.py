"""What a run tells the outside world, in order. One hierarchy for every protocol.

The engine emits these to a sink (``async def emit(event)``) and awaits it: the Django side
persists a step when its ``*Finished`` event arrives, so an awaited emit means "saved".
Chunks are raw provider deltas; the sink coalesces them for the browser.
"""

from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Protocol

from debates.engine.vocabulary import NOT_CALLS, Outcome, Status, StepKind
from debates.providers.base import Source


@dataclass(frozen=True)
class Event:
    pass


@dataclass(frozen=True)
class PhaseChanged(Event):
    """A new step of the protocol starts (``step`` of ``total`` for the progress bar)."""

    phase: str
    step: int
    total: int


@dataclass(frozen=True)
class RoundStarted(Event):
    index: int
    kind: StepKind
    title: str
    seats: tuple[str, ...]
    labels: tuple[str, ...]


@dataclass(frozen=True)
class Meter:
    """What a call spends as it streams, before its provider says: its prompt's tokens (estimated)
    and the voice's prices per million tokens. The page estimates the words as they arrive."""

    prompt_tokens: int = 0
    price_in: Decimal = Decimal("0")
    price_out: Decimal = Decimal("0")


@dataclass(frozen=True)
class ContributionStarted(Event):
    """The voice's call starts; emitted again when a queued call starts generating (its latency counts from there)."""

    round: int
    seat: str
    label: str
    kind: StepKind
    meter: Meter = Meter()
    search: bool = False  # the call may search the web


@dataclass(frozen=True)
class ContributionQueued(Event):
    """The voice waits for a model that runs one generation at a time: ``position`` of ``of`` in
    line (1 is generating). A ContributionStarted follows when its generation starts."""

    round: int
    seat: str
    position: int
    of: int


@dataclass(frozen=True)
class ContributionChunk(Event):
    round: int
    seat: str
    text: str


@dataclass(frozen=True)
class ContributionCited(Event):
    """Sources the voice's stream named, as they come (added to the card's; a discarding retry voids them)."""

    round: int
    seat: str
    sources: tuple[Source, ...]


@dataclass(frozen=True)
class ContributionRetrying(Event):
    """A provider attempt failed; ``discard`` means the text shown so far is void."""

    round: int
    seat: str
    attempt: int
    reason: str
    discard: bool


@dataclass(frozen=True)
class ContributionResult:
    """A completed (or failed, or gated-out) contribution: what a Contribution row holds."""

    round: int
    seat: str
    label: str
    kind: StepKind
    status: Outcome
    text: str = ""
    error: str = ""
    decision: str = ""
    confidence: float | None = None
    reasoning: str = ""
    sources: tuple[Source, ...] = ()  # what it cites or looked up, in the order the wire gave them
    searches: int = 0  # web searches the provider made for it (billed in ``cost``)
    flags: tuple[str, ...] = ()
    attempts: tuple[dict[str, Any], ...] = ()  # JSON records: number, latency_ms, error, fault, queued_ms
    tokens_in: int = 0
    tokens_out: int = 0
    tokens_estimated: bool = False
    cost: Decimal = Decimal("0")
    on_subscription: bool = False  # a CLI voice that reported no cost and had none: its plan paid for it
    latency_ms: int = 0  # generating, retries included; the time queued for a shared model is in attempts
    first_token_ms: int | None = None  # from the call's start to its first words (None: it wrote none)
    finish_reason: str = ""
    ledger: Mapping[str, Any] = field(default_factory=dict)  # closing.read(): claims, attacks, replies, change
    thought: str = ""  # the provider's summary of the model's reasoning, shown apart: never part of the answer

    @property
    def ok(self) -> bool:
        return self.status == Outcome.DONE

    @property
    def is_call(self) -> bool:
        return self.kind not in NOT_CALLS


@dataclass(frozen=True)
class ContributionFinished(Event):
    """Emitted for done, failed and gated results alike; the sink persists it."""

    result: ContributionResult
    replayed: bool = False  # True when it comes from storage on resume (nothing was called)


@dataclass(frozen=True)
class RoundFinished(Event):
    index: int
    status: str  # done | failed


@dataclass(frozen=True)
class PanelChanged(Event):
    """The panel actually running changed (a voice dropped, a degradation)."""

    panel_run: dict[str, Any]  # policy.Lineup.report(), stored as JSON


@dataclass(frozen=True)
class ConsensusEvaluated(Event):
    consensus: dict[str, Any]  # consensus.Consensus.as_dict(), stored as JSON


@dataclass(frozen=True)
class LedgerUpdated(Event):
    """The claim ledger after a panel round: claims, what happened to them, stances."""

    ledger: dict[str, Any]  # ledger.Ledger.as_dict(), stored as JSON


@dataclass(frozen=True)
class RunFinished(Event):
    """The end of a run, on one of the FINISHED statuses."""

    status: Status
    verdict: str = ""
    error: str = ""
    synthesis: str = ""
    sections: list[list[str]] = field(default_factory=list)  # [heading, body] pairs, in the order written
    evidence_strength: str = ""
    confidence: float | None = None  # the moderator's, when its closing block gives one
    stances: dict[str, str] = field(default_factory=dict)  # label -> the moderator's word on its stance
    reveal: dict[str, dict[str, str]] = field(default_factory=dict)  # label -> {"name", "model", "family", "provider"}
    shaped: Any = None  # the verdict in the asker's schema (RunSpec.schema), when it was asked for and fits


class Sink(Protocol):
    async def emit(self, event: Event) -> None: ...
