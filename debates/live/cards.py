"""What the viewer draws: one card per voice per round, from a result (or a stored Contribution's) or the live state.

The page, the socket snapshot and the live fragments all render these same values with the
same partial templates, so a card looks the same however the browser came to see it.
"""

import re
from dataclasses import dataclass, field
from decimal import Decimal
from functools import cached_property

from django.utils.safestring import SafeString

from debates.engine.events import ContributionResult
from debates.engine.vocabulary import Outcome
from debates.render import markdown

FINISHED_STATUSES = frozenset(Outcome)  # a card is finished once its contribution has an outcome
UNSAFE_ID_CHAR = re.compile(r"[^A-Za-z0-9_-]")
CHANGED = {"partial": "partly", "total": "entirely"}  # a change of position, as the card says it


def card_key(round_index: int, seat: str) -> str:
    """The key of a voice's contribution in one round, in live state and messages."""
    return f"{round_index}:{seat}"


def dom_id(round_index: int, seat: str) -> str:
    """An element id usable in a bare CSS selector (seat keys may hold "~")."""
    return f"v{round_index}-" + UNSAFE_ID_CHAR.sub(lambda m: f"_{ord(m.group()):x}", seat)


@dataclass
class Card:
    round: int
    seat: str
    label: str
    kind: str
    status: str = "waiting"  # waiting | streaming | retrying | done | failed | gated
    text: str = ""
    error: str = ""  # why it is retrying, failed or gated
    attempt: int = 1
    tokens_in: int = 0
    tokens_out: int = 0
    tokens_estimated: bool = False
    cost: Decimal | None = None
    latency_ms: int = 0
    started_ms: int = 0  # epoch ms the call started, for the elapsed-time counter
    decision: str = ""
    confidence: float | None = None
    flags: list[str] = field(default_factory=list)
    change: dict[str, str] = field(default_factory=dict)  # its closing block's CHANGE: degree, reason
    identity: dict | None = None

    @property
    def dom(self) -> str:
        return dom_id(self.round, self.seat)

    @property
    def finished(self) -> bool:
        return self.status in FINISHED_STATUSES

    @property
    def tokens(self) -> int:
        return self.tokens_in + self.tokens_out

    @property
    def badge(self) -> str:
        """The status in words, as the card's badge shows it."""
        if self.status == Outcome.GATED:
            return "gated out"
        if self.status == "retrying":
            return f"retrying (attempt {self.attempt})"
        if self.status == "waiting" and self.started_ms:
            return "thinking"
        return self.status

    @property
    def changed(self) -> str:
        """How far the voice says it changed its mind here ("partly", "entirely"), or "" when it did not."""
        return CHANGED.get(self.change.get("degree", ""), "")

    @cached_property
    def body(self) -> SafeString:
        """The finished text as sanitised markdown (streaming text is shown raw, escaped)."""
        return markdown(self.text)

    @classmethod
    def from_result(cls, result: ContributionResult) -> "Card":
        """A finished card: from the engine's result, or a stored Contribution's (``row.as_result()``)."""
        fields = {name: getattr(result, name) for name in RESULT_FIELDS}
        return cls(**fields, flags=list(result.flags), change=dict(result.ledger.get("change") or {}))


# What a finished card shows of a result (flags are copied to a list).
RESULT_FIELDS = (
    *("round", "seat", "label", "kind", "status", "text", "error", "tokens_in", "tokens_out", "tokens_estimated"),
    *("cost", "latency_ms", "decision", "confidence"),
)


@dataclass
class RoundView:
    index: int
    kind: str
    title: str
    status: str  # running | done | failed
    cards: list[Card]

    @property
    def solo(self) -> bool:
        """A one-voice step (triage, synthesis, tie-break) is drawn full width."""
        return len(self.cards) == 1
