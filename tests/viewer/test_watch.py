"""The follower's diff, driven without a database: a live state and rows made in memory, what is said."""

from decimal import Decimal

from debates.engine.vocabulary import Outcome, Status, StepKind
from debates.live.cards import Card
from debates.live.state import LiveRound, LiveState
from debates.live.watch import Ended, Phase, Restarted, RoundOpened, Seen, Spoken, Started, Words
from debates.models import Contribution, Question, Round


def live(phase: str = "", *rounds: LiveRound, cards: tuple[Card, ...] = ()) -> LiveState:
    return LiveState(
        phase=phase,
        rounds={r.index: r for r in rounds},
        cards={f"{c.round}:{c.seat}": c for c in cards},
    )


def voice(text: str, *, round_: int = 0, seat: str = "p1", status: str = "streaming", kind: str = StepKind.ANSWER):
    return Card(round=round_, seat=seat, label=f"Panelist {seat[-1]}", kind=kind, status=status, text=text)


def stored(text: str, *, round_: int = 0, seat: str = "p1", kind: str = StepKind.ANSWER) -> Contribution:
    """A contribution as the DB would hand it back, never saved."""
    return Contribution(
        round=Round(index=round_, kind=kind, title=f"Round {round_ + 1}"),
        seat=seat,
        label=f"Panelist {seat[-1]}",
        kind=kind,
        status=Outcome.DONE,
        text=text,
        tokens_out=7,
        cost=Decimal("0.002"),
    )


def running() -> Question:
    return Question(text="Why?", status=Status.RUNNING)


def test_a_voices_words_are_said_once_each_and_a_restart_says_it_all_again():
    seen = Seen(question_id=1)
    opened = LiveRound(0, title="Blind answers")

    assert seen.news(live("", opened, cards=(voice("Hel"),)), None) == [
        RoundOpened(0, "Blind answers"),
        Started("0:p1", "Panelist 1", StepKind.ANSWER),
        Words("0:p1", "Panelist 1", StepKind.ANSWER, "Hel"),
    ]
    assert seen.news(live("", opened, cards=(voice("Hello"),)), None) == [
        Words("0:p1", "Panelist 1", StepKind.ANSWER, "lo")
    ]
    assert seen.news(live("", opened, cards=(voice("Hello"),)), None) == []
    assert seen.news(live("", opened, cards=(voice("Bye"),)), None) == [
        Restarted("0:p1", "Panelist 1"),
        Words("0:p1", "Panelist 1", StepKind.ANSWER, "Bye"),
    ]


def test_the_judges_json_is_never_streamed_only_said_once_stored():
    seen = Seen(question_id=1)
    judging = voice('{"groups": [', seat="judge", kind=StepKind.AGREEMENT)

    said = seen.news(live("", LiveRound(0, title="Blind answers"), cards=(judging,)), None)

    assert [type(h) for h in said] == [RoundOpened, Started]


def test_a_stored_contribution_is_said_whole_with_its_last_words_and_only_once():
    seen = Seen(question_id=1)
    opened = LiveRound(0, title="Blind answers")
    seen.news(live("", opened, cards=(voice("The answer"),)), None)

    said = seen.news(
        live("", opened, cards=(voice("The answer", status=Outcome.DONE),)), (running(), [stored("The answer is 4.")])
    )

    assert said[0] == Words("0:p1", "Panelist 1", StepKind.ANSWER, " is 4.")
    assert isinstance(said[1], Spoken)
    assert (said[1].text, said[1].told, said[1].tokens, said[1].cost) == ("The answer is 4.", True, 7, Decimal("0.002"))
    assert len(said) == 2  # the run goes on: no end
    assert seen.news(live("", opened), (running(), [stored("The answer is 4.")])) == []


def test_a_new_phase_is_said_after_what_the_earlier_phase_finished_and_before_what_is_going():
    seen = Seen(question_id=1)
    first, second = LiveRound(0, title="Blind answers"), LiveRound(1, title="Debate")
    seen.news(live("Blind answers", first, cards=(voice("4"),)), None)

    said = seen.news(
        live("Debate", first, second, cards=(voice("4", status=Outcome.DONE), voice("Still 4", round_=1))),
        (running(), [stored("4")]),
    )

    assert [type(h) for h in said] == [Spoken, Phase, RoundOpened, Started, Words]
    assert said[1] == Phase("Debate", 0, 0)


def test_the_end_is_said_only_when_the_db_says_so():
    seen = Seen(question_id=1)
    done = Question(text="Why?", status=Status.DONE)

    assert not any(isinstance(h, Ended) for h in seen.news(live(), None))  # the DB was not asked
    assert seen.news(live(), (running(), [])) == []
    assert seen.news(live(), (done, [])) == [Ended(done)]
    assert seen.news(live(), (None, [])) == [Ended(None)]  # deleted meanwhile
