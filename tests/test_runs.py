"""Runs outside the request: in-process tasks, cancel, resume on startup, the server worker."""

import asyncio
from datetime import timedelta

import pytest
from asgiref.sync import sync_to_async
from django.tasks import TaskResultStatus
from django.test import override_settings
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from debates.management.commands.debate_worker import Worker, claim_ready
from debates.models import CliReport, Contribution, Panel, Provider, Question, Status, Synthesis
from debates.runs import execute, lease, tasks
from debates.runs.tasks import run_question
from tests.fakes.answers import SYNTHESIS
from tests.fakes.provider_server import Script
from tests.fakes.roster import make_panel, make_question
from tests.waiting import wait_for

pytestmark = pytest.mark.django_db(transaction=True)
MODELS = ("model-alpha", "model-beta", "model-gamma")
SERVER_SETUP = override_settings(
    RUN_IN_PROCESS=False, TASKS={"default": {"BACKEND": "django_tasks_db.DatabaseBackend", "QUEUES": ["default"]}}
)


@pytest.fixture
def scripted(fake_provider):
    for model in MODELS:
        fake_provider.script(model, f"{model}: read replicas, because reporting reads dominate the load.")
    fake_provider.script("model-moderator", SYNTHESIS)
    return fake_provider


async def panel_on(server) -> Panel:
    """A fresh panel whose voices and moderator are on ``server`` (the ORM is sync)."""
    return await sync_to_async(make_panel)(server.base_url("openai"))


async def finished(question_id: int) -> Question:
    """The question once its run has reached a final status."""

    async def final() -> Question | None:
        question = await Question.objects.aget(pk=question_id)
        return question if question.is_finished else None

    return await wait_for(final, f"question {question_id} to reach a final status")


async def calling(server) -> None:
    """Return once a panelist's call is streaming (the run is under way, not queued)."""
    await wait_for(lambda: server.in_flight, "a call to the fake provider to be in flight")


async def test_submit_runs_the_debate_outside_the_request_and_stores_every_step(scripted):
    question = await sync_to_async(make_question)(await panel_on(scripted))
    await sync_to_async(tasks.submit)(question)
    done = await finished(question.pk)
    assert done.status == Status.DONE
    assert done.calls == 9  # 3 + 3 + 1, and the judge's call after each round of answers
    assert await Contribution.objects.filter(round__question=done, status="done").acount() == 9
    assert ["Verdict", "Use read replicas."] in (await Synthesis.objects.aget(question=done)).sections
    assert done.verdict == "Use read replicas."
    assert done.lease_owner == ""


async def test_the_frozen_roster_keeps_labels_and_identities_for_the_reveal(scripted):
    question = await sync_to_async(make_question)(await panel_on(scripted))
    await sync_to_async(tasks.submit)(question)
    done = await finished(question.pk)
    labels = sorted(e["label"] for e in done.roster if e["seat"].startswith("p"))
    assert labels == ["Panelist A", "Panelist B", "Panelist C"]
    assert {v["model"] for k, v in done.panel_run["reveal"].items() if k.startswith("p")} == set(MODELS)


async def test_cancel_stops_a_running_debate_in_words(fake_provider):
    for model in MODELS:
        fake_provider.script(model, Script(answer="slow " * 400, tokens_per_second=20))
    question = await sync_to_async(make_question)(await panel_on(fake_provider))
    await sync_to_async(tasks.submit)(question)
    await calling(fake_provider)
    await sync_to_async(execute.cancel)(question.pk)
    done = await finished(question.pk)
    assert done.status == Status.CANCELLED
    assert done.error == "Cancelled by the asker."


def test_cancelling_a_queued_question_means_it_never_runs(scripted):
    question = make_question(make_panel(scripted.base_url("openai")))
    execute.cancel(question.pk)
    question.refresh_from_db()
    assert question.status == Status.CANCELLED
    assert not scripted.requests


async def test_interrupted_runs_resume_on_the_servers_first_call(scripted):
    panel = await panel_on(scripted)
    orphan = await sync_to_async(make_question)(
        panel, status=Status.RUNNING, lease_owner="dead:1", lease_expires=timezone.now() - timedelta(seconds=1)
    )
    held = await sync_to_async(make_question)(
        panel, status=Status.RUNNING, lease_owner="alive:2", lease_expires=timezone.now() + timedelta(minutes=5)
    )
    calls = []

    async def app(scope, receive, send):
        calls.append(scope["type"])

    wrapped = tasks.ResumeOnFirstCall(app)
    await wrapped({"type": "http"}, None, None)
    await wrapped({"type": "http"}, None, None)
    assert calls == ["http", "http"]
    assert (await finished(orphan.pk)).status == Status.DONE
    assert (await Question.objects.aget(pk=held.pk)).status == Status.RUNNING  # someone else's: left alone


async def test_a_run_held_by_another_runner_is_not_run_twice(scripted):
    question = await sync_to_async(make_question)(await panel_on(scripted))
    first, second = await asyncio.gather(execute.execute(question.pk), execute.execute(question.pk))
    assert {first, second} == {None, Status.DONE}
    assert len(scripted.requests) == 9


@SERVER_SETUP
async def test_the_worker_runs_queued_debates_and_resumes_orphans(scripted):
    panel = await panel_on(scripted)
    queued = await sync_to_async(make_question)(panel)
    orphan = await sync_to_async(make_question)(
        panel, status=Status.RUNNING, lease_owner="dead:1", lease_expires=timezone.now() - timedelta(seconds=1)
    )
    await run_question.aenqueue(queued.pk)
    worker = Worker(concurrency=2, interval=0.05, drain=5)
    serving = asyncio.create_task(worker.serve())
    try:
        assert (await finished(queued.pk)).status == Status.DONE
        assert (await finished(orphan.pk)).status == Status.DONE
    finally:
        worker.stopping.set()
        await serving
    assert len(scripted.requests) == 18


@SERVER_SETUP
async def test_a_worker_reports_the_cli_providers_it_can_run_and_withdraws_its_reports_when_it_stops():
    """Readiness in the server setup believes the workers' reports (runs.clis): one is written as the
    worker starts, and gone as it stops."""
    provider = await Provider.objects.acreate(name="Claude Code", wire="cli", preset="claude-code")
    worker = Worker(concurrency=1, interval=0.05, drain=1)
    serving = asyncio.create_task(worker.serve())
    try:
        report = await wait_for(lambda: CliReport.objects.filter(provider=provider).afirst(), "the worker's report")
        assert report.worker == lease.OWNER
    finally:
        worker.stopping.set()
        await serving
    assert not await CliReport.objects.aexists()


@SERVER_SETUP
async def test_a_worker_claims_a_burst_in_one_go_oldest_first_and_never_twice(scripted):
    panel = await panel_on(scripted)
    questions = [await sync_to_async(make_question)(panel) for _ in range(3)]
    for question in questions:
        await run_question.aenqueue(question.pk)

    first = await sync_to_async(claim_ready)("one:1", 2)
    rest = await sync_to_async(claim_ready)("two:2", 5)

    assert [r.args_kwargs["args"] for r in first] == [[questions[0].pk], [questions[1].pk]]
    assert [r.args_kwargs["args"] for r in rest] == [[questions[2].pk]]
    claimed = [await DBTaskResult.objects.aget(pk=r.pk) for r in first + rest]
    assert [(r.status, r.worker_ids) for r in claimed] == [(TaskResultStatus.RUNNING, ["one:1"])] * 2 + [
        (TaskResultStatus.RUNNING, ["two:2"])
    ]
    assert await sync_to_async(claim_ready)("three:3", 5) == []


@SERVER_SETUP
async def test_a_worker_never_resumes_a_run_it_is_running_itself(fake_provider):
    for model in MODELS:
        answer = f"{model}: read replicas, because reporting reads dominate the load. " * 4
        fake_provider.script(model, Script(answer=answer, tokens_per_second=40))
    fake_provider.script("model-moderator", SYNTHESIS)
    question = await sync_to_async(make_question)(await panel_on(fake_provider))
    await run_question.aenqueue(question.pk)
    worker = Worker(concurrency=2, interval=0.05, drain=5)
    serving = asyncio.create_task(worker.serve())
    try:
        await calling(fake_provider)
        # The lease lapsed while the database was away, and the watch has not renewed it yet.
        await Question.objects.filter(pk=question.pk).aupdate(lease_expires=timezone.now() - timedelta(seconds=1))
        assert (await finished(question.pk)).status == Status.DONE
    finally:
        worker.stopping.set()
        await serving
    assert len(fake_provider.requests) == 9  # each call once: the run was not started a second time


KILLED_HOLDING_THE_LEASE = {"status": Status.RUNNING, "lease_owner": "dead:1"}
KILLED_BEFORE_TAKING_THE_LEASE = {"status": Status.QUEUED, "lease_owner": ""}


@SERVER_SETUP
@pytest.mark.parametrize("left", [KILLED_HOLDING_THE_LEASE, KILLED_BEFORE_TAKING_THE_LEASE])
async def test_a_takeover_closes_the_task_row_a_killed_worker_left_running(scripted, left):
    panel = await panel_on(scripted)
    question = await sync_to_async(make_question)(panel)
    await run_question.aenqueue(question.pk)
    # What a SIGKILLed worker leaves: its task row claimed (RUNNING) and the question's lease lapsed.
    [orphan] = await sync_to_async(claim_ready)("dead:1", 1)
    lapsed = timezone.now() - timedelta(seconds=1)
    await Question.objects.filter(pk=question.pk).aupdate(lease_expires=lapsed, **left)
    alive = await sync_to_async(make_question)(
        panel, status=Status.RUNNING, lease_owner="alive:2", lease_expires=timezone.now() + timedelta(minutes=5)
    )
    await run_question.aenqueue(alive.pk)
    [others] = await sync_to_async(claim_ready)("alive:2", 1)

    assert await execute.execute(question.pk) == Status.DONE  # what the worker's orphan poll runs

    closed = await DBTaskResult.objects.aget(pk=orphan.pk)
    assert closed.status == TaskResultStatus.FAILED
    assert closed.finished_at is not None
    assert closed.exception_class_path == "debates.runs.lease.TakenOver"
    assert f"dead:1 left question {question.pk} unfinished; {lease.OWNER} took the run over" in closed.traceback
    assert (await DBTaskResult.objects.aget(pk=others.pk)).status == TaskResultStatus.RUNNING  # not this run's


async def test_maths_is_verified_before_the_panel_and_contradictions_reach_the_moderator(fake_provider):
    for model in MODELS:
        fake_provider.script(model, "91 is prime. So the hashing scheme holds for our table sizes.")
    fake_provider.script("model-moderator", SYNTHESIS)
    panel = await panel_on(fake_provider)
    question = await sync_to_async(make_question)(panel, text="Is 91 prime? Our hashing scheme assumes it.")
    assert await execute.execute(question.pk) == Status.DONE
    grounding = await Contribution.objects.aget(round__question=question, kind="grounding")
    assert "isprime" in grounding.text
    assert "False" in grounding.text
    blind = [r for r in fake_provider.requests if "on your own" in r.prompt]
    assert len(blind) == len(MODELS)
    assert all("Verified facts" in r.prompt for r in blind)
    moderator = fake_provider.requests_for("model-moderator")[0].prompt
    assert "contradicting the verified facts" in moderator


async def test_a_question_without_maths_skips_the_grounding_step(scripted):
    question = await sync_to_async(make_question)(await panel_on(scripted))
    assert await execute.execute(question.pk) == Status.DONE
    assert not await Contribution.objects.filter(round__question=question, kind="grounding").aexists()
    assert len(scripted.requests) == 9
    assert all("Verified facts" not in r.prompt for r in scripted.requests)


async def test_a_runner_that_lost_its_lease_to_another_stops(fake_provider, monkeypatch):
    monkeypatch.setattr(lease, "RENEW_EVERY", 0.1)
    monkeypatch.setattr(lease, "CANCEL_POLL", 0.05)
    for model in MODELS:
        fake_provider.script(model, Script(answer="slow " * 400, tokens_per_second=20))
    question = await sync_to_async(make_question)(await panel_on(fake_provider))
    running = asyncio.create_task(execute.execute(question.pk))
    await calling(fake_provider)
    later = timezone.now() + timedelta(minutes=5)
    await Question.objects.filter(pk=question.pk).aupdate(lease_owner="other:1", lease_expires=later)
    with pytest.raises(asyncio.CancelledError):
        await running
    taken = await Question.objects.aget(pk=question.pk)
    assert taken.status == Status.RUNNING
    assert taken.lease_owner == "other:1"  # the new holder's lease is left alone


def test_in_the_server_setup_only_long_queued_questions_count_as_orphans(scripted):
    panel = make_panel(scripted.base_url("openai"))
    fresh = make_question(panel)
    stuck = make_question(panel, created_at=timezone.now() - 10 * lease.LEASE)
    assert lease.resumable_ids(include_queued=False) == [stuck.pk]
    assert set(lease.resumable_ids()) == {fresh.pk, stuck.pk}


async def test_the_judges_calls_are_charged_to_the_model_that_made_them(scripted):
    question = await sync_to_async(make_question)(await panel_on(scripted))
    await sync_to_async(tasks.submit)(question)
    done = await finished(question.pk)
    judged = [c async for c in Contribution.objects.filter(round__question=done, kind="agreement")]
    assert len(judged) == 2  # after the blind round and after the debate
    moderator = await Question.objects.select_related("panel").aget(pk=done.pk)
    assert {c.panelist_id for c in judged} == {moderator.panel.moderator_id}  # the moderator's model judged
