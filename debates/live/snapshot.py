"""A debate as the viewer shows it at one moment: the DB rows, completed by the live state.

Completed contributions come from the DB (which wins over the live state); those still streaming come
from the live state the LiveSink publishes, with the ``seq`` it had reached. The
page, the socket's snapshot and the history all draw this one value.
"""

from dataclasses import dataclass, field

from django.utils.text import Truncator

from debates.attachments import shown
from debates.engine.checks import RESTS_ON
from debates.engine.reading.synthesis import for_people, named
from debates.engine.vocabulary import RETIRED, SEARCH_KINDS, Outcome
from debates.live import claims, story
from debates.live.cards import FINISHED_STATUSES, Card, RoundView, card_key, in_label_order, label_order, voice_tabs
from debates.live.state import LiveRound, LiveState, Totals
from debates.models import Panelist, Protocol, Question, Round, Status, StepKind, Synthesis
from debates.providers.presets import Wire

# How the tab title and the announcement at the end say how a run ended.
ENDINGS = {
    Status.DONE: "✓ Verdict",
    Status.ANSWERED: "✓ Answered",
    Status.NEEDS_REVIEW: "⚠ Needs review",
    Status.FAILED: "✗ Failed",
    Status.CANCELLED: "Cancelled",
}
NO_VERDICT = "✓ No verdict"  # done, and the moderator wrote none


@dataclass
class Debate:
    question: Question
    seq: int
    epoch: str  # "" when no live state was read: any count then follows on
    phase: str
    step: int
    total: int
    finished: str  # the question's final status, "" while it runs
    rounds: list[RoundView]
    panel_run: dict
    consensus: dict
    ledger: dict  # engine.ledger.Ledger.as_dict(): claims, stances, signals
    totals: Totals
    synthesis: Synthesis | None
    reveal: list[dict] = field(default_factory=list)
    complete: set[str] = field(default_factory=set)  # card keys the DB holds as finished
    demo: bool = False  # every voice on the embedded demo model: its answers only show the machinery

    @property
    def live(self) -> bool:
        return not self.finished

    @property
    def ending(self) -> str:
        """How the run ended, in a few words: "✓ Verdict", or "✓ No verdict" when the moderator wrote none."""
        if self.finished == Status.DONE and not self.question.verdict:
            return NO_VERDICT
        return ENDINGS[Status(self.finished)] if self.finished else ""

    @property
    def title(self) -> str:
        """The tab's title: how the run ended first, so a tab in the background says the verdict is in."""
        question = Truncator(self.question.text).chars(60)
        return f"{self.ending} — {question}" if self.finished else question

    @property
    def announcement(self) -> str:
        """What a screen reader says, and the toast shows, when the run ends under the reader's eyes."""
        if self.finished == Status.FAILED:
            return "The debate failed: read why, and what you can do, at the top of the page."
        if self.finished == Status.CANCELLED:
            return "The debate was cancelled; each voice's card keeps what it had written."
        if self.verdict:
            verdict = f"Verdict: {self.verdict}"
        elif self.synthesis is not None:
            verdict = "No verdict: the moderator wrote none. Read its synthesis."
        else:
            verdict = "No verdict: the debate is over."
        return f"Needs human review. {verdict}" if self.finished == Status.NEEDS_REVIEW else verdict

    @property
    def names(self) -> dict[str, str]:
        """Label -> the revealed panelist ({} until the run is over)."""
        return {who["label"]: who["name"] for who in self.reveal if who.get("name")}

    @property
    def files(self) -> list[shown.Shown]:
        """The question's files and who read each how, a voice named once the run is over."""
        return shown.for_question(self.question, self.names)

    @property
    def verdict(self) -> str:
        """The verdict as the reader sees it: each label the moderator used followed by its panelist's name."""
        return named(self.question.verdict, self.names)

    @property
    def synthesis_sections(self) -> list[tuple[str, str]]:
        """The moderator's sections as the page shows them, labels named."""
        stored = self.synthesis.sections if self.synthesis else []
        return [(heading, named(body, self.names)) for heading, body in stored]

    @property
    def synthesis_text(self) -> str:
        """The synthesis as people read it (the page's copy): no line a program reads, labels named."""
        return for_people(self.synthesis.text, self.names) if self.synthesis else ""

    @property
    def support(self) -> story.Support | None:
        """How far the panel backs the verdict: its agreement at the end and the moderator's confidence."""
        confidence = self.synthesis.confidence if self.synthesis else None
        agreement = story.agreement(self.ledger, self.consensus)
        return story.support(agreement, confidence) if self.question.verdict else None

    @property
    def refuted_support(self) -> list[str]:
        """What the synthesis rests on that a check between rounds refuted, unexplained: shown under the verdict."""
        return [
            flag
            for round_ in self.rounds
            for card in round_.cards
            if card.kind == StepKind.SYNTHESIS and card.status == Outcome.DONE
            for flag in card.flags
            if flag.startswith(RESTS_ON)
        ]

    @property
    def ran(self) -> str:
        """The panel that ran, in a line: "Teorema protocol (blind round, …) · 3 voices, 1 dropped"."""
        name, _, steps = Protocol(self.question.panel.protocol).label.partition(": ")
        voices = self.panel_run.get("voices", [])
        dropped = sum(v.get("status") != "active" for v in voices)
        answered = len(voices) - dropped
        line = f"{name} protocol ({steps}) · {answered} voice{'s' if answered != 1 else ''}"
        return f"{line}, {dropped} dropped" if dropped else line

    @property
    def voices(self) -> list[dict[str, str]]:
        return voice_tabs(self.panel_run, self.reveal)


IDENTITY_FIELDS = ("label", "name", "model", "family", "provider", "method")


def identities(question: Question) -> dict[str, dict]:
    """Seat -> who it was (shown once the run is over), without anything but identity fields.

    The run's reveal counts (a degraded seat's substitute is there); the frozen roster is the
    fallback for a run that ended without one.
    """
    entries = question.panel_run.get("reveal") or {e.get("seat", ""): e for e in question.roster}
    found = {seat: {f: entry.get(f, "") for f in IDENTITY_FIELDS} for seat, entry in entries.items() if seat}
    # The panelists in label order, then the moderator and the other roles: the order every list shows.
    return dict(sorted(found.items(), key=lambda item: (not item[0].startswith("p"), label_order(item[1]["label"]))))


@dataclass(frozen=True)
class Seats:
    """What a round's cards are told of their seats: who each was (once the run is over), where each
    voice ended up (the stored ledger's stances), and which seats could search, as the run was frozen."""

    revealed: dict[str, dict]
    stances: dict[str, claims.Voice]
    searching: set[str]

    @classmethod
    def of(cls, question: Question, finished: bool) -> "Seats":
        revealed = identities(question) if finished else {}
        ledger = claims.view(question.ledger, revealed.values()) if finished and question.ledger else None
        return cls(
            revealed=revealed,
            stances={voice.label: voice for voice in ledger.voices} if ledger else {},
            searching={entry.get("seat") for entry in question.roster if entry.get("search")},
        )


def build(question_id: int, state: LiveState | None) -> Debate:
    """Read the DB after the live state (``state``): a contribution the state saw finish is in the DB."""
    question = Question.objects.select_related("panel", "owner", "synthesis").get(pk=question_id)
    finished = question.status if question.is_finished else ""
    live = state if state is not None and not finished else LiveState()
    rows = {r.index: r for r in Round.objects.filter(question=question).prefetch_related("contributions")}
    seats = Seats.of(question, bool(finished))
    rounds, complete = [], set()
    for index in sorted(rows.keys() | live.rounds.keys()):
        view, stored = round_view(index, rows.get(index), live, seats)
        rounds.append(view)
        complete |= stored
    return Debate(
        question=question,
        seq=state.seq if state is not None else 0,
        epoch=state.epoch if state is not None else "",
        phase=live.phase or question.phase,
        step=live.step,
        total=live.total,
        finished=finished,
        rounds=rounds,
        panel_run=live.panel_run or question.panel_run,
        consensus=live.consensus or question.consensus,
        ledger=live.ledger or question.ledger,
        totals=Totals.stored(question, expected=live.totals.expected),
        synthesis=getattr(question, "synthesis", None),  # None: the run has not written one
        reveal=list(seats.revealed.values()),
        complete=complete,
        demo=on_demo_model(question),
    )


def round_view(index: int, row: Round | None, live: LiveState, seats: Seats) -> tuple[RoundView, set[str]]:
    """One round's cards, the stored ones over those still streaming (the DB wins over the live state),
    and the keys of the cards the DB holds as finished."""
    entry = live.rounds.get(index, LiveRound(index))
    stored = {row_.seat: Card.from_result(row_.as_result()) for row_ in row.contributions.all()} if row else {}
    for card in stored.values():  # could it search: its seat's, as the run was frozen
        card.search = card.kind in SEARCH_KINDS and card.seat.partition(RETIRED)[0] in seats.searching
    streaming = {card.seat: card for card in live.cards.values() if card.round == index}
    cards = in_label_order((streaming | stored).values())
    for card in cards:
        card.identity = seats.revealed.get(card.seat.partition(RETIRED)[0])  # an earlier try is the same voice
        # A voice's stance goes on its own contributions, not on the judge's, a question it was asked
        # or an earlier try.
        own = card.kind not in (StepKind.AGREEMENT, StepKind.BASIS) and RETIRED not in card.seat
        card.stance = seats.stances.get(card.label) if own else None
    view = RoundView(
        index=index,
        kind=row.kind if row else entry.kind,
        title=row.title if row else entry.title,
        # A round's progress is written behind the live page: the live state is never behind the row.
        status=entry.status if row is None or index in live.rounds else row.status,
        cards=cards,
    )
    return view, {card_key(index, seat) for seat, card in stored.items() if card.status in FINISHED_STATUSES}


def on_demo_model(question: Question) -> bool:
    """Every voice of the run on the embedded model (wire local): the page says its answers are not meaningful."""
    if question.roster:
        ids = [entry.get("panelist_id") for entry in question.roster]
    else:  # not started yet: the panel as it stands
        ids = [*question.panel.memberships.values_list("panelist_id", flat=True), question.panel.moderator_id]
    wires = set(Panelist.objects.filter(pk__in=ids).values_list("provider__wire", flat=True))
    return wires == {Wire.LOCAL}
