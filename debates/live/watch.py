"""Following a run as plain text, pushed as the page's viewers get it: the one follower of every
client that is no page (an MCP tool, the OpenAI-compatible endpoint, the terminal, Telegram).

It joins the question's group as a viewer does and, at each broadcast, reads the live state and says
what changed since the last look: the phase, a round opened, a voice's new words, a voice's
contribution done (its text from the DB, which the recorder writes before the broadcast), the end.
While broadcasts come it never polls; after a quiet second it looks at the DB, which tells a run
that ended with its broadcast lost, or one that has not started yet (queued for a worker) — and
is all a follower in another process gets where broadcasts stay in the run's process (the
in-memory layer): each contribution as it is stored, and the end.
"""

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from channels.layers import get_channel_layer

from debates.engine.reading import closing, judgement
from debates.engine.vocabulary import RETIRED, SEARCH_KINDS, Outcome, StepKind
from debates.live.cards import FINISHED_STATUSES, Card, card_key
from debates.live.state import LiveRound, LiveState, group_name, read_state
from debates.live.viewers import on_viewers_thread
from debates.models import Contribution, Question

QUIET = 1.0  # seconds without a broadcast before the DB is asked whether the run ended


@dataclass(frozen=True)
class Phase:
    text: str
    step: int
    total: int


@dataclass(frozen=True)
class RoundOpened:
    index: int
    title: str


@dataclass(frozen=True)
class Started:
    """A voice's call has begun (queued, or thinking): no words yet."""

    key: str
    label: str
    kind: str


@dataclass(frozen=True)
class Words:
    """New words of a voice, as the page shows them (cleaned of echoed prompt plumbing)."""

    key: str
    label: str
    kind: str
    text: str


@dataclass(frozen=True)
class Restarted:
    """The voice starts its text again (a retry after words came): what was said of it is void."""

    key: str
    label: str


@dataclass(frozen=True)
class Spoken:
    """A voice's contribution, complete and stored: its whole text and what it cost. ``told``: its
    Words add up to ``text`` (else the text differs from what streamed, or is the judge's, read)."""

    key: str
    label: str
    kind: str
    status: str
    text: str
    error: str
    tokens: int  # out: what the voice wrote
    cost: Decimal
    told: bool
    tokens_in: int = 0  # what it read
    latency_ms: int = 0
    shown: str = ""  # as people read it: its closing block as read, not the lines a program reads
    notes: tuple[dict[str, Any], ...] = ()  # what it cites, numbered (engine.sourcing.Footnote.as_dict)
    unsourced: bool = False  # it could search, or did, and cites nothing
    searches: int = 0
    on_subscription: bool = False  # a CLI voice whose subscription paid: it has no cost


@dataclass(frozen=True)
class Ended:
    question: Question | None  # None: it was deleted meanwhile


Happening = Phase | RoundOpened | Started | Words | Restarted | Spoken | Ended


async def watch(question_id: int) -> AsyncIterator[Happening]:
    """What happens in the question's run, from now to its end (what already happened first)."""
    layer = get_channel_layer()
    channel = await layer.new_channel("watch.")
    woken = asyncio.Event()
    if subscribe := getattr(layer, "subscribe", None):  # our layers hand a broadcast over at once
        subscribe(channel, lambda message: woken.set())
    await layer.group_add(group_name(question_id), channel)
    receiver = asyncio.create_task(_receive(layer, channel, woken))  # a layer's own queue, else idle
    seen = Seen(question_id)
    try:
        while True:
            woken.clear()
            for happening in await seen.look(read_state(question_id)):
                yield happening
                if isinstance(happening, Ended):
                    return
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(woken.wait(), QUIET)
            if not woken.is_set():
                seen.quiet = True
    finally:
        if subscribe:
            layer.unsubscribe(channel)
        await layer.group_discard(group_name(question_id), channel)
        receiver.cancel()  # a cancelled receive is how a layer lets a channel go


async def _receive(layer: Any, channel: str, woken: asyncio.Event) -> None:
    while True:
        await layer.receive(channel)
        woken.set()


class Seen:
    """What a watcher has said of a run so far, and so what is new in a fresh look at it."""

    def __init__(self, question_id: int) -> None:
        self.question_id = question_id
        self.phase = ""
        self.rounds: set[int] = set()
        self.started: set[str] = set()  # card keys whose start was said
        self.said: dict[str, str] = {}  # card key -> its words said so far
        self.spoken: set[str] = set()  # card keys whose contribution was said whole
        self.quiet = True  # look at the DB too: at first, and after a silence
        self.searching: set[str] = set()  # the seats that could search the web, as the run was frozen

    async def look(self, state: LiveState | None) -> list[Happening]:
        """What is new in ``state`` and, for the contributions it shows finished (every one at first,
        after a silence, and at the end), in the DB (``news``)."""
        live = state or LiveState()
        done = [key for key, card in self.unspoken(live) if card.status in FINISHED_STATUSES]
        if not (done or self.quiet or live.finished):
            return self.news(live, None)
        self.quiet = False
        return self.news(live, await on_viewers_thread(self.stored)(done))  # not behind the runs' writes

    def news(self, live: LiveState, stored: tuple[Question | None, list[Contribution]] | None) -> list[Happening]:
        """What is new in ``live`` and in ``stored`` (the question and the rows the DB holds, None when
        it was not asked), in the page's order: round by round its opening and its voices, a new phase
        said after what the earlier phases finished and before what is still going. It reads nothing
        itself: what it is given, against what was said before."""
        question, contributions = stored or (None, [])
        if question is not None:
            self.searching = {e.get("seat", "") for e in question.roster if e.get("search")}
        rows = {card_key(row.round.index, row.seat): row for row in contributions}
        cards = self.unspoken(live)
        found: list[Happening] = []
        going: int | None = None  # where the first thing still going is: a new phase is said before it
        for index in sorted({*live.rounds, *(row.round.index for row in rows.values())}):
            now = self.going_on(index, live.rounds.get(index), cards)
            if now and going is None:
                going = len(found)
            found += now
            for key, row in rows.items():
                if row.round.index == index and key not in self.spoken:
                    found += self.said_whole(key, row)
        if live.phase and live.phase != self.phase:
            self.phase = live.phase
            found.insert(len(found) if going is None else going, Phase(live.phase, live.step, live.total))
        if stored is not None and (question is None or question.is_finished):
            found.append(Ended(question))
        return found

    def unspoken(self, live: LiveState) -> list[tuple[str, Card]]:
        """The live cards whose contribution was not said whole, in the page's order."""
        cards = ((key, card) for key, card in live.cards.items() if key not in self.spoken)
        return sorted(cards, key=lambda item: (item[1].round, item[1].label))

    def going_on(self, index: int, entry: LiveRound | None, cards: list[tuple[str, Card]]) -> list[Happening]:
        """A round's opening, and what its voices still going said since the last look."""
        now: list[Happening] = []
        if index not in self.rounds and entry is not None and entry.title:
            self.rounds.add(index)
            now.append(RoundOpened(index, entry.title))
        for key, card in cards:
            if card.round != index or card.status in FINISHED_STATUSES:
                continue
            if key not in self.started:
                self.started.add(key)
                now.append(Started(key, card.label, card.kind))
            # Words as they stream; the judge's JSON is said once read, when it is stored.
            if card.kind != StepKind.AGREEMENT:
                now += self.words(key, card.label, card.kind, card.text)
        return now

    def said_whole(self, key: str, row: Contribution) -> list[Happening]:
        """A stored contribution: its last words, then the whole of it."""
        self.spoken.add(key)
        told = row.kind != StepKind.AGREEMENT and row.text.startswith(self.said.get(key, ""))
        words = self.words(key, row.label, row.kind, row.text) if told else []
        text = text_of(row)
        card = Card.from_result(row.as_result())  # what it cites, as its card shows it
        card.search = card.kind in SEARCH_KINDS and row.seat in self.searching
        return [
            *words,
            Spoken(
                key,
                row.label,
                row.kind,
                row.status,
                text,
                row.error,
                row.tokens_out,
                row.cost,
                told,
                tokens_in=row.tokens_in,
                latency_ms=row.latency_ms,
                shown=closing.for_people(text, row.ledger or {}),
                notes=tuple(note.as_dict() for note in card.footnotes),
                unsourced=card.unsourced,
                searches=row.searches,
                on_subscription=row.on_subscription,
            ),
        ]

    def words(self, key: str, label: str, kind: str, text: str) -> list[Happening]:
        """The words of ``text`` not yet said (all of it again after a restart)."""
        said = self.said.get(key, "")
        if not text:
            return []  # not yet, or starting again: what it says next tells which
        self.said[key] = text
        if text.startswith(said):
            return [Words(key, label, kind, text[len(said) :])] if len(text) > len(said) else []
        return [Restarted(key, label), Words(key, label, kind, text)]

    def stored(self, keys: list[str]) -> tuple[Question | None, list[Contribution]]:
        """The question, and the stored contributions of ``keys``; once it is finished, every one
        (a watcher that came late hears what it missed). Tries a retry replaced are left out."""
        question = Question.objects.select_related("panel").filter(pk=self.question_id).first()
        if question is None:
            return None, []
        rows = (
            Contribution.objects.filter(round__question_id=self.question_id)
            .exclude(seat__contains=RETIRED)
            .select_related("round")
            .order_by("round__index", "pk")  # as they were stored: a round's judge after its voices
        )
        if question.is_finished:
            return question, list(rows)
        rows = rows.filter(round__index__in={int(key.split(":", 1)[0]) for key in keys})
        return question, [row for row in rows if card_key(row.round.index, row.seat) in keys]


def text_of(row: Contribution) -> str:
    """A contribution as a person reads it: the judge's grouping in words, not its JSON."""
    if row.kind == StepKind.AGREEMENT and row.status == Outcome.DONE:
        judged = judgement.read(row.text)
        if isinstance(judged, judgement.Judgement):
            return "\n".join(judged.lines())
    return row.text
