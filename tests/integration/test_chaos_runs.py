"""A run's own parts failing: its worker killed mid-synthesis, a provider that stops answering.

On the server setup (2 workers or 1, a web process, PostgreSQL and Redis): a worker killed while
the moderator writes loses only that call, which the other worker makes again from the stored
panel work; a voice whose provider sends nothing (no bytes, or headers and then silence) is
failed by the stall timeout, said so in words, and the run ends under its failure policy.
"""

import asyncio
import contextlib
import signal
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.fakes.provider_server import FakeProviderServer, Script
from tests.integration import cluster as deploy
from tests.integration.cluster import API_KEY_ENV, Cluster, ask
from tests.integration.debate import (
    PANEL,
    VOICES,
    Deployment,
    Store,
    StoredContribution,
    requests_about,
    roster_toml,
    script_voices,
    set_up,
    step_of,
)
from tests.integration.test_scale_out import (
    assert_complete_run,
    assert_saw_everything,
    holder,
    question_text,
    until,
    watch_all,
)
from tests.integration.viewer import dom_text_id

pytestmark = [pytest.mark.services, pytest.mark.timeout(600)]
WORDS = 40  # per answer
STALL_TIMEOUT = 1.5  # seconds of silence after which a call to the stalling provider fails
HANGS = "it-hang"  # accepts the request and never sends a byte
STALLS = "it-stall"  # sends its headers and a few words, then nothing
# One panel per way to stall: degrade seats a stand-in, strict stops the run.
STALL_PANELS = {HANGS: ("stall-degrade", "degrade"), STALLS: ("stall-strict", "strict")}


def stalling_roster(server: FakeProviderServer) -> str:
    """The integration roster, and a provider whose two models stall, each on a panel of its own."""
    lines = [
        "",
        "[[providers]]",
        'name = "Stalling"',
        'wire = "openai"',
        f'base_url = "{server.base_url("openai")}"',
        f'api_key_env = "{API_KEY_ENV}"',
        "max_retries = 0",
        f"stall_timeout = {STALL_TIMEOUT}",
    ]
    for model, (slug, policy) in STALL_PANELS.items():
        lines += ["", "[[panelists]]", f'name = "{model}"', 'provider = "Stalling"', f'model = "{model}"']
        lines += [f'family = "{model}"', "", "[[panels]]", f'name = "{slug}"', f'slug = "{slug}"']
        lines += ['protocol = "teorema"', f'members = ["it-alpha", "it-beta", "{model}"]', 'moderator = "it-moderator"']
        lines.append(f'failure_policy = "{policy}"')
    return roster_toml(server, VOICES) + "\n".join(lines) + "\n"


@contextlib.contextmanager
def stalling_deployment(workdir: Path) -> Iterator[Deployment]:
    """The integration deployment with the stalling panels (bench/bench_chaos.py too)."""
    with FakeProviderServer() as server, deploy.postgres_database() as database_url, deploy.redis_database() as url:
        script_voices(server, VOICES, WORDS, moderator_tps=20.0)  # the moderator streams for 2 s or so
        server.script(HANGS, Script(fault="hang"))
        server.script(STALLS, Script(fault="stall", after_chunks=3))
        roster = workdir / "roster.toml"
        roster.write_text(stalling_roster(server))
        yield set_up(workdir, server, database_url, url, roster)


@pytest.fixture(scope="module")
def deployment(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Deployment]:
    deploy.require_services()
    with stalling_deployment(tmp_path_factory.mktemp("chaos-runs")) as deployment:
        yield deployment


@dataclass(frozen=True)
class Takeover:
    lease: float  # seconds from the kill to the other worker holding the run
    synthesis: float  # seconds from the kill to the synthesis stored


def synthesis_streaming(deployment: Deployment, text: str, viewer_page) -> bool:
    asked = any(step_of(r) == "synthesis" for r in requests_about(deployment.server, text))
    return asked and any(shown for key, shown in viewer_page().texts.items() if key.endswith("-moderator-text"))


async def kill_worker_mid_synthesis(deployment: Deployment, cluster: Cluster) -> Takeover:
    """One debate on two workers; SIGKILL the one running it while the moderator's words stream."""
    web = cluster.web("web")
    workers = [cluster.worker("worker1"), cluster.worker("worker2")]
    store = Store(deployment.database_url)
    try:
        text = question_text("synthesis-kill")
        question_id = ask(web, deployment.credentials, text, PANEL)
        (viewer,), watching = await watch_all([web], question_id, deployment.credentials.session)
        await until(lambda: synthesis_streaming(deployment, text, viewer.page), "the synthesis to stream", cluster)
        victim = holder(store, question_id, workers)
        assert victim is not None
        victim.signal(signal.SIGKILL)
        killed = time.monotonic()
        survivor = next(w for w in workers if w is not victim)
        await until(lambda: holder(store, question_id, workers) is survivor, "the other worker's lease", cluster)
        lease = time.monotonic() - killed
        await until(lambda: store.question(question_id)["status"] == "done", "the synthesis", cluster)
        synthesis = time.monotonic() - killed
        await asyncio.wait_for(asyncio.gather(*watching), 120)
        contributions = assert_complete_run(store, question_id)
    finally:
        store.close()

    asked = Counter((r.model, step_of(r)) for r in requests_about(deployment.server, text))
    assert asked.pop(("it-moderator", "synthesis")) == 2  # the killed call, and the one that completed
    assert set(asked.values()) == {1}, f"a panel call was made again: {asked}"
    # The synthesis streamed again from its start: what the viewer saw of the killed call was replaced.
    assert_saw_everything(viewer, contributions, cut_short={dom_text_id(v.round, v.seat) for v in contributions})
    return Takeover(lease, synthesis)


async def test_a_worker_killed_mid_synthesis_hands_the_run_over_and_no_panel_call_is_repeated(
    deployment: Deployment, cluster: Cluster
) -> None:
    await kill_worker_mid_synthesis(deployment, cluster)


@dataclass(frozen=True)
class Stalled:
    question: dict  # the question's row
    failure: StoredContribution  # the stalled voice's contribution
    page: str  # the final page its viewer was sent
    waited: float  # seconds from the stalled call's request to its failure stored


async def stalled_runs(deployment: Deployment, cluster: Cluster) -> dict[str, Stalled]:
    """A debate on each stalling panel, side by side, each watched to its end."""
    web = cluster.web("web")
    cluster.worker("worker")
    store = Store(deployment.database_url)
    texts = {model: question_text(f"stall-{model}") for model in STALL_PANELS}
    ids = {model: ask(web, deployment.credentials, texts[model], slug) for model, (slug, _) in STALL_PANELS.items()}
    failures: dict[str, tuple[StoredContribution, float]] = {}

    def failed() -> bool:
        for model, question_id in ids.items():
            found = next((v for v in store.calls(question_id) if v.model == model), None)
            if found is not None and model not in failures:
                failures[model] = (found, time.monotonic())
        return len(failures) == len(ids)

    try:
        viewers, watching = [], []
        for question_id in ids.values():
            (viewer,), tasks = await watch_all([web], question_id, deployment.credentials.session)
            viewers.append(viewer)
            watching += tasks
        await until(failed, "each stalled voice to fail", cluster)
        ended = {"done", "failed"}
        await until(lambda: all(store.question(q)["status"] in ended for q in ids.values()), "the runs' ends", cluster)
        await asyncio.wait_for(asyncio.gather(*watching), 120)
        questions = {model: store.question(question_id) for model, question_id in ids.items()}
    finally:
        store.close()
    outcomes = {}
    for model, viewer in zip(ids, viewers, strict=True):
        failure, stored = failures[model]
        (request,) = [r for r in requests_about(deployment.server, texts[model]) if r.model == model]  # no retries
        assert viewer.close_code == 1000
        # The fake runs in this process: one monotonic clock.
        outcomes[model] = Stalled(questions[model], failure, viewer.messages[-1][1], stored - request.at)
    return outcomes


async def test_providers_that_stop_answering_are_timed_out_said_so_and_the_runs_end(
    deployment: Deployment, cluster: Cluster
) -> None:
    stalled = await stalled_runs(deployment, cluster)
    for outcome in stalled.values():
        assert outcome.failure.status == "failed"
        assert "stalled: nothing for 1.5s" in outcome.failure.error, outcome.failure.error
        assert "its stream stalled" in outcome.page
    # No bytes at all, on a panel that degrades: a stand-in answers in its seat and the run completes.
    assert (stalled[HANGS].question["status"], stalled[HANGS].question["error"]) == ("done", "")
    # Headers, a few words, then silence, on a strict panel: the run stops, saying which voice and why.
    assert stalled[STALLS].question["status"] == "failed"
    assert "its stream stalled" in stalled[STALLS].question["error"]
