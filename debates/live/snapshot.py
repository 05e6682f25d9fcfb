"""A debate as the viewer shows it at one moment: the DB rows, completed by the live state.

Completed contributions come from the DB (which wins over the cache); those still streaming come
from the live state the LiveSink keeps in the cache, with the ``seq`` it had reached. The
page, the socket's snapshot and the history all draw this one value.
"""

from dataclasses import dataclass, field

from debates.live.cards import FINISHED_STATUSES, Card, RoundView, card_key
from debates.live.state import LiveRound, LiveState, Totals
from debates.models import Question, Round, Synthesis


@dataclass
class Debate:
    question: Question
    seq: int
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

    @property
    def live(self) -> bool:
        return not self.finished


IDENTITY_FIELDS = ("label", "name", "model", "family", "provider", "method")


def identities(question: Question) -> dict[str, dict]:
    """Seat -> who it was (shown once the run is over), without anything but identity fields.

    The run's reveal counts (a degraded seat's substitute is there); the frozen roster is the
    fallback for a run that ended without one.
    """
    entries = question.panel_run.get("reveal") or {e.get("seat", ""): e for e in question.roster}
    return {seat: {f: entry.get(f, "") for f in IDENTITY_FIELDS} for seat, entry in entries.items() if seat}


def build(question_id: int, state: LiveState | None) -> Debate:
    """Read the DB after the cache (``state``): a contribution the cache saw finish is in the DB."""
    question = Question.objects.select_related("panel", "owner").get(pk=question_id)
    finished = question.status if question.is_finished else ""
    live = state if state is not None and not finished else LiveState()
    rows = {r.index: r for r in Round.objects.filter(question=question).prefetch_related("contributions")}
    revealed = identities(question) if finished else {}

    rounds, complete = [], set()
    for index in sorted(rows.keys() | live.rounds.keys()):
        row, entry = rows.get(index), live.rounds.get(index, LiveRound(index))
        stored = {row_.seat: Card.from_result(row_.as_result()) for row_ in row.contributions.all()} if row else {}
        streaming = {card.seat: card for card in live.cards.values() if card.round == index}
        cards = [stored.get(seat) or card for seat, card in streaming.items()]
        cards += [card for seat, card in sorted(stored.items(), key=lambda s: s[1].label) if seat not in streaming]
        for card in cards:
            card.identity = revealed.get(card.seat)
        complete |= {card_key(index, seat) for seat, card in stored.items() if card.status in FINISHED_STATUSES}
        rounds.append(
            RoundView(
                index=index,
                kind=row.kind if row else entry.kind,
                title=row.title if row else entry.title,
                status=row.status if row else entry.status,
                cards=cards,
            )
        )

    return Debate(
        question=question,
        seq=state.seq if state is not None else 0,
        phase=live.phase or question.phase,
        step=live.step,
        total=live.total,
        finished=finished,
        rounds=rounds,
        panel_run=live.panel_run or question.panel_run,
        consensus=live.consensus or question.consensus,
        ledger=live.ledger or question.ledger,
        # The recorder keeps these with every stored contribution.
        totals=Totals(question.calls, question.tokens_in + question.tokens_out, question.cost),
        synthesis=Synthesis.objects.filter(question=question).first(),
        reveal=list(revealed.values()),
        complete=complete,
    )
