"""Redis lost and back mid-debate: 10 debates on a web process and a worker, Redis of our own.

Redis carries the live stream only (the channel layer and each run's live state); the runs,
their rows and the queue are in PostgreSQL. So a Redis restart must cost no run and no call:
every debate finishes, each call is made once, and every viewer, reconnecting as the page does,
catches up and ends with every word once and in order, as stored.
"""

import asyncio
import contextlib
import json
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fakes.provider_server import FakeProviderServer
from tests.integration import cluster as deploy
from tests.integration import services
from tests.integration.cluster import Cluster, ask
from tests.integration.debate import (
    PANEL,
    VOICES,
    Deployment,
    Store,
    requests_about,
    script_voices,
    set_up,
    step_of,
    write_roster,
)
from tests.integration.test_chaos_postgres import PROBE_TIMEOUT
from tests.integration.test_scale_out import assert_complete_run, assert_saw_everything, question_text, until
from tests.integration.viewer import Viewer, dom_text_id, follow, out_of_order

pytestmark = [pytest.mark.services, pytest.mark.timeout(600)]
DEBATES = 10
DOWN = 1.0  # seconds Redis stays away
AWAY = 20.0  # seconds of a longer outage: runs end their rounds meanwhile
WORDS = 40  # per answer: long enough for a run to be mid-stream when Redis goes


@pytest.fixture(scope="module")
def redis_server() -> Iterator[services.PrivateRedis]:
    deploy.require_services()
    services.require_binaries()
    with services.private_redis() as server:
        yield server


@contextlib.contextmanager
def redis_deployment(workdir: Path, redis_server: services.PrivateRedis) -> Iterator[Deployment]:
    """The integration deployment, its channel layer on our own Redis (bench/bench_chaos.py too)."""
    with FakeProviderServer() as server, deploy.postgres_database() as database_url:
        script_voices(server, VOICES, WORDS, moderator_tps=40.0)
        roster = write_roster(workdir / "roster.toml", server, VOICES)
        yield set_up(workdir, server, database_url, redis_server.url, roster)


@pytest.fixture(scope="module")
def deployment(tmp_path_factory: pytest.TempPathFactory, redis_server: services.PrivateRedis) -> Iterator[Deployment]:
    with redis_deployment(tmp_path_factory.mktemp("chaos-redis"), redis_server) as deployment:
        yield deployment


async def restart_redis_mid_debates(
    deployment: Deployment, cluster: Cluster, redis_server: services.PrivateRedis, down: float = DOWN
) -> list[float]:
    """Run DEBATES debates, each watched; kill Redis once every one has stored a contribution,
    start it again ``down`` seconds later; check every run and viewer. Returns, per viewer, the
    seconds from Redis answering again to its first message after that (caught up), 0 for none."""
    web = cluster.web("web")
    cluster.worker("worker", "--concurrency", str(DEBATES))
    store = Store(deployment.database_url)
    session = deployment.credentials.session
    try:
        texts = [question_text(f"redis-{n}") for n in range(DEBATES)]
        ids = [ask(web, deployment.credentials, text, PANEL) for text in texts]
        viewers = [Viewer(web.port) for _ in ids]
        opened = [asyncio.Event() for _ in ids]
        following = [
            asyncio.create_task(follow(v, q, session, o)) for v, q, o in zip(viewers, ids, opened, strict=True)
        ]
        await asyncio.wait_for(asyncio.gather(*(o.wait() for o in opened)), 60)

        await until(lambda: all(store.calls(q) for q in ids), "a stored contribution in every debate", cluster)
        redis_server.stop()
        await asyncio.sleep(down)
        redis_server.start()
        back = time.time()
        # A page opened (or reloaded) now reads the live state from the new, empty Redis.
        late = [Viewer(web.port) for _ in ids]
        following += [asyncio.create_task(follow(v, q, session)) for v, q in zip(late, ids, strict=True)]
        await until(lambda: all(store.question(q)["status"] == "done" for q in ids), "every debate to finish", cluster)
        await asyncio.wait_for(asyncio.gather(*following), 120)
        runs = [assert_complete_run(store, q) for q in ids]
    finally:
        store.close()

    for text, contributions, watching in zip(texts, runs, zip(viewers, late, strict=True), strict=True):
        asked = Counter((r.model, step_of(r)) for r in requests_about(deployment.server, text))
        assert set(asked.values()) == {1}, f"a call was made twice: {asked}"
        stored = {dom_text_id(v.round, v.seat): v.text for v in contributions}
        for viewer in watching:
            assert out_of_order(viewer, stored)[:3] == []
            # Words a viewer missed while Redis was away come back in the snapshot it catches up from.
            assert_saw_everything(viewer, contributions, cut_short=set(stored))
    # A viewer that had the finished page before Redis was back (from the DB, after a silence) waited 0 s.
    return [next((at - back for at, _ in viewer.messages if at >= back), 0.0) for viewer in viewers]


async def test_a_redis_restart_loses_no_word_and_strands_no_run(
    deployment: Deployment, cluster: Cluster, redis_server: services.PrivateRedis
) -> None:
    await restart_redis_mid_debates(deployment, cluster, redis_server)


async def test_redis_away_for_20s_loses_no_word_and_strands_no_run(
    deployment: Deployment, cluster: Cluster, redis_server: services.PrivateRedis
) -> None:
    await restart_redis_mid_debates(deployment, cluster, redis_server, down=AWAY)


async def test_with_redis_unreachable_the_probe_is_answered_at_once_naming_the_channel_layer(
    deployment: Deployment, cluster: Cluster, redis_server: services.PrivateRedis
) -> None:
    web = cluster.web("web")
    with redis_server.frozen():
        probes = [deploy.get(web.port, path, timeout=PROBE_TIMEOUT) for path in ("/healthz", "/readyz", "/healthz")]
        alive = deploy.get(web.port, "/livez", timeout=PROBE_TIMEOUT)

    assert alive.status == 200  # not a reason to restart the process

    for probe in probes:
        assert (probe.status, json.loads(probe.body)) == (
            503,
            {"status": "failed", "database": "ok", "channel_layer": "failed"},
        )
    await until(lambda: deploy.get(web.port, "/healthz").status == 200, "the probe to find Redis back", cluster)
