"""The live side of a run: coalesce chunks, publish the live state, broadcast fragments.

Every broadcast carries a per-question ``seq`` and the state it leaves is published
(``live.state.publish``) before it is sent, so a viewer that reads the state and then
listens misses nothing and doubles nothing (see docs/architecture.md, "Live stream without loss
or doubling").
Fragments are rendered once here, whatever the number of viewers, and not at all while nobody
in this process watches a run whose broadcasts stay in it (nothing reads them: a viewer that comes
later starts from the state, published all the same); the consumer only filters.
Events wait in a queue for the next broadcast and change the state only when it goes (a reader
never sees a change whose broadcast it will also get): a voice's first words and the end go at
once, other words one flush window after the last broadcast (at once after a quiet window: a
window counted from the words themselves held a word that came after a quiet spell for the
whole window), other steps within STEP_WINDOW. The words' window is none while the process is
quiet and widens to FLUSH_INTERVAL_MS as it gets busy (``live.pace``).
The sink never writes the DB: the recorder does, before a ContributionFinished reaches this sink.

A broadcast on the group ``question-<id>`` is::

    {"type": "live.batch", "seq": 42, "epoch": "9f2c01ab", "final": False,
     "parts": [{"card": "3:p1", "chunk": True, "html": "<div hx-swap-oob=…>…</div>"}, …]}

``card`` is the "<round>:<seat>" a part is about ("" for none); ``chunk`` marks streamed text
(a viewer whose snapshot shows that card complete skips it); ``final`` ends the run; ``epoch``
names the count ``seq`` belongs to (a new one when a resumed run found no state to go on from).

A part's HTML is the page's own fragment (``round.html#card``, ``progress.html``…): the htmx ws
extension swaps each top-level element of a message into the element with its id. The state
stands in for the page's ``debate``: it has the fields those fragments read.
"""

import asyncio
import html
import logging
import re
import time
from dataclasses import replace
from typing import Any

from channels.layers import get_channel_layer
from django.conf import settings
from django.template.loader import render_to_string

from debates.engine import dossier
from debates.engine.events import (
    ConsensusEvaluated,
    ContributionChunk,
    ContributionCited,
    ContributionFinished,
    ContributionQueued,
    ContributionRetrying,
    ContributionStarted,
    Event,
    LedgerUpdated,
    PanelChanged,
    PhaseChanged,
    RoundFinished,
    RoundStarted,
    RunFinished,
)
from debates.live.cards import FINISHED_STATUSES, Card, RoundView, card_key, in_label_order, voice_tabs
from debates.live.pace import PACE
from debates.live.state import Changes, LiveRound, LiveState, Totals, group_name, publish, read_state, release

log = logging.getLogger(__name__)
# Text that may hold prompt plumbing to clean before a viewer sees it (dossier.unquote decides).
PLUMBING = re.compile(r"<<|‹‹|««|≪|&lt;&lt;|BEGIN|Panelist|\[[Yy]our|<[Yy]our|\[[Ii]nsert")
UNFINISHED_MARKER = re.compile(r"(?:<<|‹‹|««|≪|&lt;&lt;)[^\n>›»≫;]{0,160}$")
# How far back from the end (UNFINISHED_MARKER: its longest match, 8 + 160, and a final newline
# its "$" may stand before) or from the new text (PLUMBING: its longest word, less one) a match
# can start: the checks of each flush look there only, not at the whole answer again.
MARKER_REACH = 169
PLUMBING_OVERLAP = 7
# Seconds a step of the page (a card started or finished, a round, the phase) waits for the steps
# the engine emits with it, so that they go out as one message.
STEP_WINDOW = 0.01
DATABASE_AWAY = "The database is not answering: the panel goes on, and its answers are saved once the database is back."


def fragment(template: str, **context: Any) -> str:
    """A fragment of the page ("round.html#card"), to swap into the element with its id."""
    return render_to_string(f"debates/partials/{template}", context)


def chunk_fragment(dom: str, text: str) -> str:
    """New words for the end of a card's text, built without the template engine: it is the
    fragment sent most often (one per voice per flush)."""
    return f'<div hx-swap-oob="beforeend:#{dom}-text">{html.escape(text)}</div>'


class LiveSink:
    """The engine's live sink for one question (composed with the recorder by runs.execute)."""

    def __init__(self, question_id: int, stored: Totals) -> None:
        """``stored``: the question's totals as the run starts (``Totals.stored`` of the claimed row)."""
        self.question_id = question_id
        self.stored = stored
        self.layer = get_channel_layer()
        self.interval = settings.TEOREMA["FLUSH_INTERVAL_MS"] / 1000
        self.adapts = settings.TEOREMA["FLUSH_ADAPTS"]
        self.state: LiveState | None = None
        self.changes = Changes()  # in the state since it was last written: all of it, at first
        self.queued: list[Event] = []  # events not yet broadcast, in order (chunks merged when it goes)
        self.streaming: set[str] = set()  # card keys with words in the queue
        self.raw: dict[str, str] = {}  # card key -> the text as the model sent it (cards show it cleaned)
        self.plumbed: set[str] = set()  # card keys whose raw text holds something PLUMBING matches
        self.lock = asyncio.Lock()  # seq order is send order
        self.timer: asyncio.Task[None] | None = None  # the words' window
        self.sent_at = float("-inf")  # loop time of the last broadcast
        self.soon: asyncio.Task[None] | None = None  # the page's next step, a moment later
        self.failed: Exception | None = None  # a broadcast's failure in the background, raised at the next emit
        self.rendering = True  # the next broadcast's fragments are read by someone (see _watched)

    async def emit(self, event: Event) -> None:
        """Queue the event for the next broadcast (the engine emits a round's end and the next
        round's start together: one message, not eight)."""
        if self.failed is not None:
            failed, self.failed = self.failed, None
            raise failed
        self._load()
        self.queued.append(event)
        if isinstance(event, ContributionChunk):
            key = card_key(event.round, event.seat)
            first = key not in self.raw and key not in self.streaming
            self.streaming.add(key)
            if first:  # a voice's first words show at once; the rest is coalesced
                await self.flush()
            elif self.timer is None:  # one window after the last broadcast, not after these words
                window = PACE.window(self.interval) if self.adapts else self.interval
                wait = self.sent_at + window - asyncio.get_running_loop().time()
                self.timer = asyncio.create_task(self._flush_later(max(0.0, wait)))
        elif isinstance(event, RunFinished):
            await self.flush()
        elif self.soon is None:
            self.soon = asyncio.create_task(self._flush_soon())

    async def database_away(self, away: bool) -> None:
        """The run's writes wait for the database (``away``), or it answers again: its viewers read
        so where the progress shows, while the panel goes on streaming."""
        self._load()
        self.rendering = self._watched()
        if away:
            part = self._part("outage.html", message=DATABASE_AWAY)
        else:
            part = self._part("progress.html", debate=self.live)
        async with self.lock:
            await self._broadcast([part])

    async def open_rounds(self) -> list[int]:
        """The rounds a stopped run left open (each of its voices is stored with what it had written)."""
        self._load()
        await self.flush()
        return sorted(index for index, entry in self.live.rounds.items() if entry.status == "running")

    async def close(self) -> None:
        """Send what is still queued; the run is over (or stopped)."""
        await self.flush()
        for timer in (self.timer, self.soon):
            if timer is not None:
                timer.cancel()
        release(self.question_id)

    async def _flush_later(self, wait: float) -> None:
        await asyncio.sleep(wait)
        self.timer = None
        await self._flush_in_background()

    async def _flush_soon(self) -> None:
        await asyncio.sleep(STEP_WINDOW)
        self.soon = None
        await self._flush_in_background()

    async def _flush_in_background(self) -> None:
        try:
            await self.flush()
        except Exception as exc:  # raised to the engine at its next event, as if emit had failed
            self.failed = self.failed or exc

    async def flush(self) -> None:
        """One broadcast with every queued event: one fragment per voice for its words gathered
        since the last one, in order with the other steps' fragments."""
        async with self.lock:
            if not self.queued:
                return
            queued, self.queued, self.streaming = self.queued, [], set()
            self.rendering = self._watched()
            parts: list[dict[str, Any]] = []
            words: dict[str, str] = {}  # card key -> words since the last other step
            for event in queued:
                if isinstance(event, ContributionChunk):
                    key = card_key(event.round, event.seat)
                    words[key] = words.get(key, "") + event.text
                    continue
                parts += [self._append(key, text) for key, text in words.items()]
                words = {}
                parts += self._apply(event)
            parts += [self._append(key, text) for key, text in words.items()]
            if parts:  # a round's end changes no fragment: the state goes out with the next broadcast
                await self._broadcast(parts)
            if isinstance(queued[-1], RunFinished):  # on its own: a viewer answers it with the final page
                await self._broadcast([], final=True)

    def _watched(self) -> bool:
        """Whether a broadcast now reaches anyone (always, on a layer that cannot tell: the server's).

        Called with no wait between it and the broadcast's publishing, so on this process's loop a
        viewer either joined before (and gets the fragments) or joins after and reads the state the
        broadcast leaves."""
        members = getattr(self.layer, "has_members", None)
        return members is None or members(group_name(self.question_id))

    def _load(self) -> None:
        """The state once per run: a resumed run continues the seq of the run before it, so
        connected viewers keep up, and its totals start from what is stored (replayed contributions are
        in them already, whether or not the cached state survived the crash). No query: the first
        words of a run would wait for it behind every other run's writes."""
        if self.state is not None:
            return
        self.state = read_state(self.question_id) or LiveState()
        self.state.totals = replace(self.stored)

    @property
    def live(self) -> LiveState:
        """The state, which emit() loads before anything reads it."""
        assert self.state is not None, "emit() loads the state first"
        return self.state

    async def _broadcast(self, parts: list[dict[str, Any]], final: bool = False) -> None:
        self.live.seq += 1
        self.sent_at = asyncio.get_running_loop().time()
        message = {
            "type": "live.batch",
            "seq": self.live.seq,
            "epoch": self.live.epoch,
            "parts": parts,
            "final": final,
        }
        # A broken cache or channel layer must not stop a paid-for debate: viewers can reload.
        try:
            await publish(self.layer, self.question_id, self.live, self.changes, message)
            self.changes = Changes(head=False, whole=False)
        except Exception:
            self.changes.whole = True  # what is stored is unknown
            log.exception("live broadcast %s of question %s failed", message["seq"], self.question_id)

    # --- events -> state changes and fragments ----------------------------------------------
    def _card(self, round_index: int, seat: str, **fields: Any) -> Card:
        """The card to change (a new one when the state has none)."""
        key = card_key(round_index, seat)
        self.changes.head |= key not in self.live.cards
        self.changes.cards.add(key)
        card = self.live.cards.setdefault(key, Card(round_index, seat, seat, ""))
        for name, value in fields.items():
            setattr(card, name, value)
        return card

    def _append(self, key: str, text: str) -> dict[str, Any]:
        """New text of a voice: appended to its card, or the whole card again when cleaning the
        text of echoed prompt plumbing changed what was shown (the stored text is cleaned too)."""
        round_index, seat = key.split(":", 1)
        card = self._card(int(round_index), seat)
        before = self.raw.get(key, "")
        raw = self.raw[key] = before + text
        if key not in self.plumbed and PLUMBING.search(raw, max(0, len(before) - PLUMBING_OVERLAP)):
            self.plumbed.add(key)
        if opened := UNFINISHED_MARKER.search(raw, max(0, len(raw) - MARKER_REACH)):
            raw = raw[: opened.start()]  # maybe a fence marker still arriving: shown once it is whole
        if key in self.plumbed and PLUMBING.search(raw):
            shown = dossier.unquote(raw, {c.label for c in self.live.cards.values()})
        else:
            shown = raw
        if card.status != "streaming" or not shown.startswith(card.text):
            card.status, card.error, card.text = "streaming", "", shown
            return self._part("round.html#card", card_key=key, card=card) | {"chunk": True}
        added, card.text = shown[len(card.text) :], shown
        return {"card": key, "chunk": True, "html": chunk_fragment(card.dom, added) if self.rendering else ""}

    def _forget(self, key: str) -> None:
        """The voice starts its text again."""
        self.raw.pop(key, None)
        self.plumbed.discard(key)

    def _apply(self, event: Event) -> list[dict[str, Any]]:
        state = self.live
        self.changes.head = True  # a step may change anything of it: steps are few
        match event:
            case PhaseChanged():
                state.phase, state.step, state.total = event.phase, event.step, event.total
                return [self._part("progress.html", debate=state)]
            case RoundStarted():
                return [self._round_started(event)]
            case ContributionStarted():
                key = card_key(event.round, event.seat)
                shown = key in state.cards
                card = self._card(
                    event.round,
                    event.seat,
                    label=event.label,
                    kind=event.kind,
                    status="waiting",
                    text="",
                    error="",
                    started_ms=int(time.time() * 1000),
                    meter=event.meter,
                    position=0,
                    of=0,
                    sources=[],
                    search=event.search,
                )
                self._forget(key)
                return [self._part("round.html#card", card_key=key, card=card) if shown else self._placed(card)]
            case ContributionQueued():
                card = self._card(
                    event.round, event.seat, status="queued", position=event.position, of=event.of, started_ms=0
                )
                return [self._part("round.html#card", card_key=card_key(event.round, event.seat), card=card)]
            case ContributionCited():
                card = self._card(event.round, event.seat)
                card.sources = [*card.sources, *event.sources]
                return [self._part("round.html#sources", card_key=card_key(event.round, event.seat), card=card)]
            case ContributionRetrying():
                card = self._card(event.round, event.seat, status="retrying", error=event.reason, attempt=event.attempt)
                if event.discard:
                    card.text, card.sources = "", []
                    self._forget(card_key(event.round, event.seat))
                return [self._part("round.html#card", card_key=card_key(event.round, event.seat), card=card)]
            case ContributionFinished():
                return self._finished(event)
            case RoundFinished():
                state.rounds.setdefault(event.index, LiveRound(event.index)).status = event.status
                return []
            case PanelChanged():
                state.panel_run = event.panel_run
                return [
                    self._part("debate.html#panel-run", debate=state),
                    self._part("debate.html#views", voices=voice_tabs(state.panel_run)),
                ]
            case ConsensusEvaluated():
                state.consensus = event.consensus
                return [self._part("debate.html#consensus", debate=state)]
            case LedgerUpdated():
                state.ledger = event.ledger
                ledger = self._part("debate.html#ledger", debate=state)
                # The panel's lines say who searched the web, and how often, as the ledger counts it.
                return (
                    [ledger, self._part("debate.html#panel-run", debate=state)]
                    if event.ledger.get("searched")
                    else [ledger]
                )
            case RunFinished():
                state.finished = event.status
                return []
        return []

    def _part(self, template: str, card_key: str = "", **context: Any) -> dict[str, Any]:
        return {"card": card_key, "chunk": False, "html": fragment(template, **context) if self.rendering else ""}

    def _placed(self, card: Card) -> dict[str, Any]:
        """A card the page does not show yet (a stand-in's), inserted where the label order puts it."""
        peers = in_label_order(c for c in self.live.cards.values() if c.round == card.round)
        before = peers[peers.index(card) - 1] if peers.index(card) else None
        return self._part("round.html#placed-card", card_key=card_key(card.round, card.seat), card=card, after=before)

    def _round_started(self, event: RoundStarted) -> dict[str, Any]:
        known = bool(event.index in self.live.rounds and self.live.rounds[event.index].title)
        self.live.rounds[event.index] = LiveRound(event.index, event.kind, event.title)
        cards = []
        for seat, label in zip(event.seats, event.labels, strict=True):
            card = self.live.cards.get(card_key(event.index, seat))
            if card is None or card.status not in FINISHED_STATUSES:
                card = self._card(event.index, seat, label=label, kind=event.kind, status="waiting", text="")
            cards.append(card)
        view = RoundView(event.index, event.kind, event.title, "running", in_label_order(cards))
        # A new round is appended; one seen before (a resumed run) replaces itself.
        return self._part("round.html" if known else "debate.html#new-round", round=view)

    def _finished(self, event: ContributionFinished) -> list[dict[str, Any]]:
        result = event.result
        # The text is in the DB now (the recorder saw this event first): keep only the status.
        live = self._card(
            result.round, result.seat, label=result.label, kind=result.kind, status=result.status, text=""
        )
        live.sources = []
        finished = Card.from_result(result)
        finished.search = live.search
        totals = self.live.totals
        if not event.replayed:  # a replayed contribution is counted in the stored totals already
            totals.calls += result.is_call
            totals.tokens += result.tokens_in + result.tokens_out
            totals.cost += result.cost
            if result.on_subscription:  # a new set: the stored totals it was copied from keep theirs
                totals.on_subscription = totals.on_subscription | {result.seat}
        return [
            self._part("round.html#card", card_key=card_key(result.round, result.seat), card=finished),
            self._part("totals.html", debate=self.live),
        ]
