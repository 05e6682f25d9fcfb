"""Resume: a run killed at any point continues from its stored votes; none is asked twice."""

import pytest
from asgiref.sync import sync_to_async

from debates.engine.events import ContributionFinished, PhaseChanged
from debates.engine.run import run
from debates.models import Contribution, Question, Status
from debates.runs.recorder import Recorder
from debates.runs.spec import freeze_roster, prior_for, spec_for
from tests.fakes.answers import SYNTHESIS
from tests.fakes.roster import make_panel, make_question

pytestmark = pytest.mark.django_db(transaction=True)

MODELS = ("model-alpha", "model-beta", "model-gamma")


class Crash(Exception):
    """Stands for the process dying: after it, nothing more reaches the database."""


class DyingSink:
    def __init__(self, recorder: Recorder, dies_when) -> None:
        self.recorder = recorder
        self.dies_when = dies_when
        self.dead = False

    async def emit(self, event) -> None:
        if self.dead or self.dies_when(event):
            self.dead = True
            raise Crash
        await self.recorder.emit(event)


@pytest.fixture
def question(fake_provider) -> Question:
    for model in MODELS:
        fake_provider.script(
            model, lambda r, m=model: f"{m} says replicas{' again' * ('on your own' not in r.prompt)}."
        )
    fake_provider.script("model-moderator", SYNTHESIS)
    question = make_question(make_panel(fake_provider.base_url("openai"), voices=len(MODELS)))
    question.roster = freeze_roster(question)
    question.save()
    return question


async def run_once(question: Question, dies_when=lambda e: False):
    recorder = Recorder(question.pk, {e["seat"]: e["panelist_id"] for e in question.roster})
    spec = await sync_to_async(spec_for)(question)
    prior = await sync_to_async(prior_for)(question.pk)
    return await run(spec, DyingSink(recorder, dies_when), prior)


@pytest.mark.parametrize("step", [1, 2, 3])
async def test_a_run_killed_between_steps_resumes_without_asking_anyone_twice(question, fake_provider, step):
    with pytest.raises(Crash):
        await run_once(question, lambda e: isinstance(e, PhaseChanged) and e.step == step + 1)
    finished = await run_once(question)
    assert finished.status == "done"
    asked = [(r.model, r.prompt) for r in fake_provider.requests]
    calls = 3 + 1 + 3 + 1 + 1  # each round of answers (no ANSWER line to group by) is judged
    assert len(asked) == calls
    assert len(set(asked)) == len(asked)
    assert await Contribution.objects.filter(round__question=question).acount() == calls
    saved = await Question.objects.aget(pk=question.pk)
    assert saved.status == Status.DONE
    assert saved.calls == calls


@pytest.mark.parametrize("stored_before_kill", [1, 2])
async def test_a_run_killed_mid_round_never_asks_a_completed_vote_again(question, fake_provider, stored_before_kill):
    finished_votes: list[str] = []

    def dies_when(event) -> bool:
        if isinstance(event, ContributionFinished):
            if len(finished_votes) == stored_before_kill:
                return True
            finished_votes.append(event.result.seat)
        return False

    with pytest.raises(Crash):
        await run_once(question, dies_when)
    assert len(finished_votes) == stored_before_kill
    assert (await run_once(question)).status == "done"
    seat_model = {e["seat"]: e["model"] for e in question.roster}
    for seat in finished_votes:
        blind = [r for r in fake_provider.requests_for(seat_model[seat]) if "on your own" in r.prompt]
        assert len(blind) == 1, f"{seat} was asked again"


async def test_a_resumed_run_keeps_its_ledger_and_its_on_dissent_decision(question, fake_provider):
    """Claims are read once and stored with each contribution: a run killed after the blind round
    resumes with the same ledger, and on_dissent decides the same way without asking anyone again."""
    labels = {e["seat"]: e["label"] for e in question.roster}
    for entry in question.roster:
        if entry["seat"].startswith("p"):
            fake_provider.script(
                entry["model"],
                (
                    "Reads dominate.\n\nANSWER: Add read replicas\nCLAIMS:\n"
                    "1. [fact] Reads are 90% of the queries | confidence: 80% | falsified if: logs show more writes"
                ),
            )
    question.debate = "on_dissent"
    await question.asave()
    with pytest.raises(Crash):
        await run_once(question, lambda e: isinstance(e, PhaseChanged) and e.step == 3)
    # The ledger row may lag the death (progress is written behind the live page); the claims
    # are stored with each answer, which is what the resumed run reads them from.
    asked = len(fake_provider.requests)
    assert (await run_once(question)).status == "done"
    assert len(fake_provider.requests) == asked + 1  # only the moderator: answers replayed, debate skipped
    resumed = await Question.objects.aget(pk=question.pk)
    assert sorted(c["id"] for c in resumed.ledger["claims"]) == sorted(
        f"{label[-1]}1" for seat, label in labels.items() if seat.startswith("p")
    )
    assert {c["text"] for c in resumed.ledger["claims"]} == {"Reads are 90% of the queries"}
    assert resumed.panel_run["debate"]["skipped"] is True
