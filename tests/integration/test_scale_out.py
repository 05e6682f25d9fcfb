"""The server setup under failure: 2 Daphne processes, 2 workers, PostgreSQL, Redis, real signals.

A debate is submitted through one web process's API and watched over a websocket on each web
process; the worker running it is killed (or asked to stop) mid-round. What must hold: the
debate completes, every viewer saw all of it exactly once, no finished call is paid for twice,
no stored step is lost.
"""

import asyncio
import secrets
import signal
from collections import Counter
from collections.abc import Callable

import pytest

from debates.engine.reading.synthesis import read
from debates.lib.render import markdown
from tests.integration.cluster import Cluster, Process, ask
from tests.integration.debate import PANEL, VOICES, Deployment, Store, StoredContribution, requests_about, step_of
from tests.integration.viewer import Viewer, dom_text_id, finished_html, watch

pytestmark = [pytest.mark.services, pytest.mark.timeout(600)]
PLANNED_CALLS = len(VOICES) * 2 + 1  # teorema: round 0, one debate round, the moderator
WAIT = 240  # seconds: generous bounds for a shared 2-core machine; no assertion is about time


async def until(probe: Callable, what: str, cluster: Cluster):
    """Poll ``probe`` until it returns something truthy; fail with the processes' logs."""
    deadline = asyncio.get_running_loop().time() + WAIT
    while not (value := probe()):
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"waited {WAIT}s for {what}\n{cluster.logs()}")
        await asyncio.sleep(0.05)
    return value


def holder(store: Store, question_id: int, workers: list[Process]) -> Process | None:
    """The worker whose lease the run is under (lease_owner is host:pid:nonce)."""
    owner = store.question(question_id)["lease_owner"]
    return next((w for w in workers if owner.split(":")[1:2] == [str(w.pid)]), None)


def question_text(test: str) -> str:
    return f"Read replicas or sharding for our reporting load? ({test} {secrets.token_hex(4)})"


async def watch_all(webs: list[Process], question_id: int, session: str) -> tuple[list[Viewer], list[asyncio.Task]]:
    """A websocket viewer on each web process, connected before this returns."""
    viewers, tasks = [], []
    for web in webs:
        opened = asyncio.Event()
        viewers.append(Viewer(web.port))
        tasks.append(asyncio.create_task(watch(viewers[-1], question_id, session, opened)))
        await asyncio.wait_for(opened.wait(), 30)
    return viewers, tasks


def shown_finished(store: Store, question_id: int, viewers: list[Viewer]) -> bool:
    """A stored contribution's finished card has reached every viewer (the run is past its first step)."""
    stored = {dom_text_id(v.round, v.seat) for v in store.calls(question_id)}
    return bool(stored) and all(stored & viewer.page().finished for viewer in viewers)


def assert_complete_run(store: Store, question_id: int) -> list[StoredContribution]:
    question = store.question(question_id)
    assert (question["status"], question["error"]) == ("done", "")
    calls = store.calls(question_id)
    assert len(calls) == question["calls"] == PLANNED_CALLS, calls
    assert {v.status for v in calls} == {"done"}
    assert Counter(v.kind for v in calls) == {"answer": len(VOICES), "debate": len(VOICES), "synthesis": 1}
    assert len({(v.round, v.seat) for v in calls}) == PLANNED_CALLS
    return calls


def assert_saw_everything(
    viewer: Viewer, contributions: list[StoredContribution], cut_short: set[str] = frozenset()
) -> None:
    """The page showed each contribution's whole text as it streamed, and its rendered text at the end.

    ``cut_short``: contributions stored, but not yet shown finished, when their worker was killed. The
    recorder stores a contribution before the live sink broadcasts its last chunk and finished card,
    so those died with the process; the resumed run shows the finished card: what streamed is
    then a prefix of the text (still never doubled, never out of order).
    """
    assert viewer.close_code == 1000  # the consumer closes normally once the run is over
    page = viewer.page()
    final = viewer.messages[-1][1]
    for stored in contributions:
        text_id = dom_text_id(stored.round, stored.seat)
        if stored.kind == "synthesis":  # shown once, in its sections, below the moderator's card
            sections = read(stored.text).sections
            assert sections, f"the synthesis has no sections: {stored.text!r}"
            for _, body in sections:
                assert str(markdown(body)) in final, body
        else:
            assert finished_html(final, text_id) == stored.finished_body(), text_id
        streamed = page.streamed.get(text_id)
        assert streamed is not None, f"{text_id} never streamed to the viewer on port {viewer.port}"
        if text_id in cut_short:
            assert stored.text.startswith(streamed), (text_id, streamed, stored.text)
        else:
            assert streamed == stored.text, (text_id, streamed, stored.text)


@pytest.mark.parametrize(
    ("stop", "drain"),
    [(signal.SIGKILL, "30"), (signal.SIGTERM, "0")],
    ids=["sigkill", "sigterm-past-the-drain"],
)
async def test_a_stopped_workers_debate_completes_on_the_other_and_both_viewers_see_it_whole(
    deployment: Deployment, cluster: Cluster, stop: signal.Signals, drain: str
) -> None:
    """SIGKILL: the lease lapses and the other worker resumes. SIGTERM with no time to drain:
    the worker checkpoints (stops the run, frees its lease) and the other one resumes."""
    webs = [cluster.web("web1"), cluster.web("web2")]
    workers = [cluster.worker("worker1", "--drain", drain), cluster.worker("worker2", "--drain", drain)]
    store = Store(deployment.database_url)
    try:
        text = question_text(stop.name)
        question_id = ask(webs[0], deployment.credentials, text, PANEL)
        viewers, watching = await watch_all(webs, question_id, deployment.credentials.session)

        # Mid-round 0: the fastest voice's answer is stored and shown, the slower ones stream.
        victim = await until(
            lambda: shown_finished(store, question_id, viewers) and holder(store, question_id, workers),
            "a finished contribution on every viewer",
            cluster,
        )
        victim.signal(stop)
        victim.popen.wait(30)
        stored_before = store.calls(question_id)
        shown_before = [set(viewer.page().finished) for viewer in viewers]
        survivor = next(w for w in workers if w is not victim)

        await until(lambda: holder(store, question_id, workers) is survivor, "the other worker's lease", cluster)
        await until(lambda: store.question(question_id)["status"] == "done", "the debate to complete", cluster)
        await asyncio.wait_for(asyncio.gather(*watching), WAIT)
        contributions = assert_complete_run(store, question_id)
    finally:
        store.close()

    if stop == signal.SIGTERM:
        assert victim.popen.returncode == 0, victim.output()
    assert survivor.alive()
    assert 0 < len(stored_before) < PLANNED_CALLS
    asked = Counter((r.model, step_of(r)) for r in requests_about(deployment.server, text))
    for stored in stored_before:
        assert asked[stored.model, stored.kind] == 1, f"{stored.model} {stored.kind} was finished, yet asked again"
    assert {(v.model, v.kind) for v in contributions} == set(asked)  # every call answered is stored
    for viewer, shown in zip(viewers, shown_before, strict=True):
        cut_short = {dom_text_id(v.round, v.seat) for v in stored_before} - shown
        assert_saw_everything(viewer, contributions, cut_short)


async def test_sigterm_drains_the_running_debate_and_hands_new_work_to_the_other_worker(
    deployment: Deployment, cluster: Cluster
) -> None:
    web = cluster.web("web")
    workers = [cluster.worker("worker1"), cluster.worker("worker2")]
    store = Store(deployment.database_url)
    try:
        text = question_text("drain")
        question_id = ask(web, deployment.credentials, text, PANEL)
        viewers, watching = await watch_all([web], question_id, deployment.credentials.session)
        stopping = await until(
            lambda: store.calls(question_id) and holder(store, question_id, workers), "a stored contribution", cluster
        )
        stopping.signal(signal.SIGTERM)
        later_text = question_text("after-sigterm")
        later_id = ask(web, deployment.credentials, later_text, PANEL)  # a stopping worker takes no new work

        await until(lambda: not stopping.alive(), "the stopping worker to drain and exit", cluster)
        assert stopping.popen.returncode == 0, stopping.output()
        contributions = assert_complete_run(store, question_id)
        await until(lambda: store.question(later_id)["status"] == "done", "the later debate", cluster)
        assert_complete_run(store, later_id)
        await asyncio.wait_for(asyncio.gather(*watching), WAIT)
    finally:
        store.close()

    assert "draining 1 running debates" in stopping.output()
    for asked_about in (text, later_text):
        asked = Counter((r.model, step_of(r)) for r in requests_about(deployment.server, asked_about))
        assert sum(asked.values()) == PLANNED_CALLS, asked  # nothing billed twice
        assert set(asked.values()) == {1}, asked
    assert_saw_everything(viewers[0], contributions)


async def test_a_question_queued_while_the_worker_waits_starts_without_waiting_for_its_next_poll(
    deployment: Deployment, cluster: Cluster
) -> None:
    web = cluster.web("web")
    cluster.worker("worker", "--interval", "3600")  # its first poll, at start, finds nothing; the next is in an hour
    store = Store(deployment.database_url)
    try:
        question_id = ask(web, deployment.credentials, question_text("woken"), PANEL)
        await until(lambda: store.question(question_id)["status"] == "done", "the question to be answered", cluster)
    finally:
        store.close()
