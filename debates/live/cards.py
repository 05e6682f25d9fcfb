"""What the viewer draws: one card per voice per round, from a result (or a stored Contribution's) or the live state.

The page, the socket snapshot and the live fragments all render these same values with the
same partial templates, so a card looks the same however the browser came to see it.
"""

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from functools import cached_property
from typing import Any

from django.utils.html import format_html
from django.utils.safestring import SafeString
from django.utils.text import slugify

from debates.engine import sourcing
from debates.engine.events import ContributionResult, Meter
from debates.engine.reading import closing, judgement, synthesis
from debates.engine.reading.judgement import Judgement
from debates.engine.vocabulary import RETIRED, SEARCH_KINDS, Outcome, StepKind
from debates.lib.render import markdown
from debates.live.claims import Voice
from debates.providers.base import Source

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
    status: str = "waiting"  # waiting | queued | streaming | retrying | done | failed | gated | cancelled
    text: str = ""
    error: str = ""  # why it is retrying, failed or gated
    attempt: int = 1
    tokens_in: int = 0
    tokens_out: int = 0
    tokens_estimated: bool = False
    cost: Decimal | None = None
    on_subscription: bool = False  # a CLI voice whose subscription paid: it shows no cost
    latency_ms: int = 0
    started_ms: int = 0  # epoch ms the call started generating, for the elapsed-time counter
    meter: Meter = field(default_factory=Meter)  # what its call spends while it streams (the page estimates)
    position: int = 0  # queued: its place in line for a shared model (1 is generating), of ``of``
    of: int = 0
    decision: str = ""
    confidence: float | None = None
    flags: list[str] = field(default_factory=list)
    record: dict[str, Any] = field(default_factory=dict)  # its closing block as read: answer, claims, change…
    identity: dict | None = None
    stance: Voice | None = None  # where the voice ended up, on a finished page (the ledger's stances)
    sources: list[Source] = field(default_factory=list)  # what it cites or looked up, as read so far
    searches: int = 0  # web searches the provider made for it
    thought: str = ""  # its provider's summary of its reasoning, shown folded under the answer
    search: bool = False  # its call could search the web

    @property
    def dom(self) -> str:
        return dom_id(self.round, self.seat)

    @property
    def voice(self) -> str:
        return voice_key(self.label)

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
        if self.status == "queued":
            return f"queued ({self.position} of {self.of})"
        if self.status == "waiting" and self.started_ms:
            return "thinking"
        if RETIRED in self.seat:
            return f"{self.status}, then retried"
        return self.status

    @property
    def footnotes(self) -> list[sourcing.Footnote]:
        """What it cites, numbered (as it streams: they come with the words they support)."""
        return sourcing.footnotes(self.sources, self.text, (self.record or {}).get("claims", ()))

    @property
    def looked_up(self) -> list[Source]:
        """Pages it looked up and cites nowhere."""
        return sourcing.looked_up(self.sources)

    @property
    def unsourced(self) -> bool:
        """A finished answer of a voice that could search, or did, and cites nothing."""
        answered = self.status == Outcome.DONE and self.kind in SEARCH_KINDS
        return answered and (self.search or self.searches > 0) and not self.footnotes

    @property
    def change(self) -> dict[str, str]:
        """Its closing block's CHANGE: degree and reason ({} without one)."""
        return dict(self.record.get("change") or {})

    @property
    def changed(self) -> str:
        """How far the voice says it changed its mind here ("partly", "entirely"), or "" when it did not."""
        return CHANGED.get(self.change.get("degree", ""), "")

    @property
    def grouping(self) -> str:
        """The judge's grouping in one line, for the folded card: who gives which answer."""
        if self.judgement is None:
            return ""
        return "; ".join(
            f"“{answer}”: {', '.join(label.removeprefix('Panelist ') for label, _ in members)}"
            for answer, members in self.judgement.groups
        )

    @cached_property
    def judgement(self) -> Judgement | None:
        """The judge's grouping, read (a judge's card shows it, not the JSON it came in)."""
        if self.kind != StepKind.AGREEMENT or self.status != Outcome.DONE:
            return None
        found = judgement.read(self.text)
        return found if isinstance(found, Judgement) else None

    @cached_property
    def parts(self) -> tuple[str, str, str] | None:
        """(prose, its closing block as read in words, prose under it); None: shown as written."""
        # A change of mind is said above the text (``changed``); "none, and why" is said with the block.
        return closing.parts(self.text, self.record, change=not self.changed) if self.record else None

    @property
    def thought_html(self) -> SafeString:
        """Its provider's summary of its reasoning, as sanitised markdown (models write it in markdown)."""
        return markdown(self.thought)

    @cached_property
    def body(self) -> SafeString:
        """The finished text as sanitised markdown (streaming text is shown raw, escaped); its closing
        block as the structured parts it was read into, not the lines a program reads."""
        if self.parts is None:
            return markdown(self.for_people)
        before, read, after = self.parts
        return format_html('{}<div class="closing">{}</div>{}', markdown(before), markdown(read), markdown(after))

    @property
    def for_people(self) -> str:
        """The finished text as a copy gives it: what the body shows, in Markdown, never a line a
        program reads (a finished synthesis's closing block, its verdict being on top; a voice's, as
        it was read)."""
        if self.kind == StepKind.SYNTHESIS and self.status == Outcome.DONE:
            return synthesis.for_people(self.text)
        return closing.for_people(self.text, self.record) if self.record else self.text

    @classmethod
    def from_result(cls, result: ContributionResult) -> "Card":
        """A finished card: from the engine's result, or a stored Contribution's (``row.as_result()``)."""
        fields = {name: getattr(result, name) for name in RESULT_FIELDS}
        return cls(**fields, flags=list(result.flags), record=dict(result.ledger), sources=list(result.sources))


def label_order(label: str) -> list[int | str]:
    """The sort key of a label: A, B, C…, and "Panelist 10" after "Panelist 9"."""
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", label)]


def in_label_order(cards: Iterable[Card]) -> list[Card]:
    """Cards as every view lists them, live or finished: by label, a stand-in right after the seat it took,
    the judge's grouping after every voice it groups."""
    return sorted(cards, key=lambda c: (c.kind == StepKind.AGREEMENT, label_order(c.label), c.seat))


def voice_key(label: str) -> str:
    """Which voice a label is, across rounds ("panelist-a"): the per-voice view shows one at a time."""
    return slugify(label)


def voice_tabs(panel_run: Mapping[str, Any], reveal: Iterable[Mapping[str, str]] = ()) -> list[dict[str, str]]:
    """The panel's voices in label order, a tab each in the per-voice view (named once the run is over)."""
    names = {who.get("label"): who.get("name", "") for who in reveal}
    labels = sorted({voice["label"] for voice in panel_run.get("voices", [])}, key=label_order)
    return [{"key": voice_key(label), "label": label, "name": names.get(label, "")} for label in labels]


# What a finished card shows of a result (flags are copied to a list).
RESULT_FIELDS = (
    *("round", "seat", "label", "kind", "status", "text", "error", "tokens_in", "tokens_out", "tokens_estimated"),
    *("cost", "on_subscription", "latency_ms", "decision", "confidence", "searches", "thought"),
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
