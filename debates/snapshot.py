"""A debate as the viewer shows it at one moment: the DB rows, completed by the live state.

Completed votes come from the DB (which wins over the cache); votes still streaming come
from the live state the LiveSink keeps in the cache, with the ``seq`` it had reached. The
page, the socket's snapshot and the history all draw this one value.
"""

from dataclasses import dataclass, field

from debates.cards import FINISHED_STATUSES, Card, RoundView, vote_key
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
    totals: dict
    synthesis: Synthesis | None
    reveal: list[dict] = field(default_factory=list)
    complete: set[str] = field(default_factory=set)  # vote keys the DB holds as finished

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


def build(question_id: int, state: dict) -> Debate:
    """Read the DB after the cache (``state``): a vote the cache saw finish is in the DB."""
    question = Question.objects.select_related("panel", "owner").get(pk=question_id)
    finished = question.status if question.is_finished else ""
    live = {} if finished else state
    rows = {r.index: r for r in Round.objects.filter(question=question).prefetch_related("votes")}
    live_rounds = {int(index): entry for index, entry in live.get("rounds", {}).items()}
    live_votes = live.get("votes", {})
    revealed = identities(question) if finished else {}

    rounds, complete = [], set()
    for index in sorted(rows.keys() | live_rounds.keys()):
        row, entry = rows.get(index), live_rounds.get(index, {})
        stored = {vote.seat: Card.from_result(vote.as_result()) for vote in row.votes.all()} if row else {}
        streaming = {v["seat"]: Card.from_live(v) for v in live_votes.values() if v["round"] == index}
        cards = [stored.get(seat) or card for seat, card in streaming.items()]
        cards += [card for seat, card in sorted(stored.items(), key=lambda s: s[1].label) if seat not in streaming]
        for card in cards:
            card.identity = revealed.get(card.seat)
        complete |= {vote_key(index, seat) for seat, card in stored.items() if card.status in FINISHED_STATUSES}
        rounds.append(
            RoundView(
                index=index,
                kind=row.kind if row else entry.get("kind", ""),
                title=row.title if row else entry.get("title", ""),
                status=row.status if row else entry.get("status", "running"),
                cards=cards,
            )
        )

    return Debate(
        question=question,
        seq=state.get("seq", 0),
        phase=live.get("phase") or question.phase,
        step=live.get("step", 0),
        total=live.get("total", 0),
        finished=finished,
        rounds=rounds,
        panel_run=live.get("panel_run") or question.panel_run,
        consensus=live.get("consensus") or question.consensus,
        # The recorder keeps these with every stored vote.
        totals={"calls": question.calls, "tokens": question.tokens_in + question.tokens_out, "cost": question.cost},
        synthesis=Synthesis.objects.filter(question=question).first(),
        reveal=list(revealed.values()),
        complete=complete,
    )
