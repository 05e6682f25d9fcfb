"""PostgreSQL lost and back mid-debate: a web process and a worker on a PostgreSQL of our own.

PostgreSQL holds what a run has paid for (each finished call's contribution) and who runs it
(the lease). A restart of it must cost no run and no call: the debates go on where they were,
each call is made once, and every viewer sees every word once and in order, as stored.
"""

import asyncio
import contextlib
import json
import secrets
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
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
from tests.integration.test_scale_out import assert_complete_run, assert_saw_everything, question_text, until
from tests.integration.viewer import Viewer, dom_text_id, follow, out_of_order

pytestmark = [pytest.mark.services, pytest.mark.timeout(600)]
DEBATES = 3
DOWN = 3.0  # seconds PostgreSQL stays away: the slower voices finish their calls meanwhile
AWAY = 20.0  # seconds of a longer outage: every voice finishes its call and waits to store it
LEASE = "60"  # seconds: longer than the outage, as in production
TOLD = "The database is not answering"  # what a viewer reads while it is away
WORDS = 40  # per answer: the slowest voice's takes longer than the outage


@pytest.fixture(scope="module")
def postgres_server() -> Iterator[services.PrivatePostgres]:
    deploy.require_services()
    services.require_binaries()
    with services.private_postgres() as server:
        yield server


@contextlib.contextmanager
def postgres_deployment(workdir: Path, postgres_server: services.PrivatePostgres) -> Iterator[Deployment]:
    """The integration deployment, its database on our own PostgreSQL (bench/bench_chaos.py too)."""
    with FakeProviderServer() as server, deploy.redis_database() as redis_url:
        script_voices(server, VOICES, WORDS, moderator_tps=40.0)
        roster = write_roster(workdir / "roster.toml", server, VOICES)
        database_url = postgres_server.create_database(f"teorema_{secrets.token_hex(4)}")
        yield set_up(workdir, server, database_url, redis_url, roster, TEOREMA_LEASE_SECONDS=LEASE)


@pytest.fixture(scope="module")
def deployment(
    tmp_path_factory: pytest.TempPathFactory, postgres_server: services.PrivatePostgres
) -> Iterator[Deployment]:
    with postgres_deployment(tmp_path_factory.mktemp("chaos-postgres"), postgres_server) as deployment:
        yield deployment


@dataclass(frozen=True)
class Recovered:
    resumed: float  # seconds from PostgreSQL answering again to the next contribution stored
    told: list[bool]  # per viewer: told in words, while it was away, that the database is not answering


def told_of_the_outage(viewer: Viewer) -> bool:
    """The viewer was shown that the database is not answering, and the page moved on from it."""
    said = [i for i, (_, message) in enumerate(viewer.messages) if TOLD in message]
    return bool(said) and said[-1] < len(viewer.messages) - 1


async def restart_postgres_mid_debates(
    deployment: Deployment, cluster: Cluster, postgres_server: services.PrivatePostgres, down: float = DOWN
) -> Recovered:
    """Run DEBATES debates, each watched; stop PostgreSQL as a crash would once every one has
    stored a contribution, start it again ``down`` seconds later; check every run and viewer:
    each call made once, every word seen once and in order."""
    web = cluster.web("web")
    cluster.worker("worker")
    store = Store(deployment.database_url)
    session = deployment.credentials.session
    texts = [question_text(f"postgres-{n}") for n in range(DEBATES)]
    ids = [ask(web, deployment.credentials, text, PANEL) for text in texts]
    viewers = [Viewer(web.port) for _ in ids]
    opened = [asyncio.Event() for _ in ids]
    following = [asyncio.create_task(follow(v, q, session, o)) for v, q, o in zip(viewers, ids, opened, strict=True)]
    await asyncio.wait_for(asyncio.gather(*(o.wait() for o in opened)), 60)

    await until(lambda: all(store.calls(q) for q in ids), "a stored contribution in every debate", cluster)
    before = sum(len(store.calls(q)) for q in ids)
    store.close()
    postgres_server.stop()
    await asyncio.sleep(down)
    postgres_server.start()
    back = time.monotonic()
    store = Store(deployment.database_url)
    try:
        await until(lambda: sum(len(store.calls(q)) for q in ids) > before, "a contribution stored again", cluster)
        resumed = time.monotonic() - back
        await until(lambda: all(store.question(q)["status"] == "done" for q in ids), "every debate to finish", cluster)
        await asyncio.wait_for(asyncio.gather(*following), 120)
        runs = [assert_complete_run(store, q) for q in ids]
    finally:
        store.close()

    for text, contributions, viewer in zip(texts, runs, viewers, strict=True):
        asked = Counter((r.model, step_of(r)) for r in requests_about(deployment.server, text))
        assert set(asked.values()) == {1}, f"a call was made twice: {asked}"
        stored = {dom_text_id(v.round, v.seat): v.text for v in contributions}
        assert out_of_order(viewer, stored)[:3] == []
        assert_saw_everything(viewer, contributions, cut_short=set(stored))
    return Recovered(resumed, [told_of_the_outage(viewer) for viewer in viewers])


async def test_a_postgres_restart_mid_debate_costs_no_run_and_no_call(
    deployment: Deployment, cluster: Cluster, postgres_server: services.PrivatePostgres
) -> None:
    await restart_postgres_mid_debates(deployment, cluster, postgres_server)


async def test_postgres_away_for_20s_mid_debate_costs_no_call_and_its_viewers_are_told_in_words(
    deployment: Deployment, cluster: Cluster, postgres_server: services.PrivatePostgres
) -> None:
    recovered = await restart_postgres_mid_debates(deployment, cluster, postgres_server, down=AWAY)

    assert recovered.told == [True] * DEBATES


# Seconds an orchestrator's probe waits before it calls the process dead (Kubernetes: 1 s by default),
# doubled for a loaded test machine.
PROBE_TIMEOUT = 2.0
READER_TIMEOUT = 10.0  # seconds: a reader's patience with a page


@contextlib.contextmanager
def postgres_down(postgres_server: services.PrivatePostgres) -> Iterator[None]:
    """PostgreSQL stopped as a crash would for the block, then started again."""
    postgres_server.stop()
    try:
        yield
    finally:
        postgres_server.start()


async def test_with_postgres_down_probes_and_pages_are_answered_at_once_in_words(
    deployment: Deployment, cluster: Cluster, postgres_server: services.PrivatePostgres
) -> None:
    web = cluster.web("web")
    session = deployment.credentials.session
    assert deploy.get(web.port, "/history/", session).status == 200
    with postgres_down(postgres_server):
        probes = [deploy.get(web.port, path, timeout=PROBE_TIMEOUT) for path in ("/healthz", "/readyz", "/healthz")]
        alive = deploy.get(web.port, "/livez", timeout=PROBE_TIMEOUT)
        page = deploy.get(web.port, "/history/", session, timeout=READER_TIMEOUT)
        api = deploy.get(web.port, "/api/questions/1", session, timeout=READER_TIMEOUT)

    for probe in probes:
        assert (probe.status, json.loads(probe.body)) == (
            503,
            {"status": "failed", "database": "failed", "channel_layer": "ok"},
        )
    assert alive.status == 200  # not a reason to restart the process
    assert page.status == 503
    assert "The database is not answering: this page cannot be shown now." in page.body
    assert "Traceback" not in page.body
    assert api.status == 503
    assert json.loads(api.body)["error"].startswith("The database is not answering")
    # Back: the next probe finds it, and the page shows again.
    await until(lambda: deploy.get(web.port, "/healthz").status == 200, "the probe to find PostgreSQL back", cluster)
    assert deploy.get(web.port, "/history/", session).status == 200


# psycopg-pool's line for each connection asked of the pool (``getconn``, logged with LOG_LEVEL=DEBUG).
ASKED_THE_POOL = "connection requested from"


def pages_with_postgres_down(web: deploy.Process, session: str = "", pages: int = 2) -> list[tuple[int, str, int]]:
    """Each page's status, body and how many connections its request asked the pool for: requests
    one at a time, so every such line in the log between two answers is that request's."""
    answered = []
    for _ in range(pages):
        logged = web.output().count(ASKED_THE_POOL)
        page = deploy.get(web.port, "/history/", session, timeout=READER_TIMEOUT)
        answered.append((page.status, page.body, web.output().count(ASKED_THE_POOL) - logged))
    return answered


async def test_with_postgres_down_a_page_waits_for_one_connection_and_answers_503_in_words(
    deployment: Deployment, cluster: Cluster, postgres_server: services.PrivatePostgres
) -> None:
    """One wait of TEOREMA_DB_WAIT_SECONDS whatever the load: the page's session, its user and its
    own reads share the first failure, and none waits again (as the 503 page, rendered without
    them, does not). Signed in with a session, and as the local user, whose sign-in reads the
    database in a middleware, before any view."""
    signed_in = cluster.web("web", LOG_LEVEL="DEBUG")
    local = cluster.web("local", LOG_LEVEL="DEBUG", TEOREMA_LOCAL_USER="local-reader")
    assert deploy.get(signed_in.port, "/history/", deployment.credentials.session).status == 200
    with postgres_down(postgres_server):
        answered = pages_with_postgres_down(signed_in, deployment.credentials.session)
        answered += pages_with_postgres_down(local)

    for status, body, asked in answered:
        assert (status, asked) == (503, 1)
        assert "The database is not answering: this page cannot be shown now." in body
        assert "Traceback" not in body


async def test_the_first_pages_after_a_postgres_restart_are_served_from_fresh_connections(
    deployment: Deployment, cluster: Cluster, postgres_server: services.PrivatePostgres
) -> None:
    """Every connection the pool held died with the server: none of them may cost a reader a 503."""
    web = cluster.web("web")
    session = deployment.credentials.session
    pages = [deploy.get(web.port, "/history/", session) for _ in range(4)]  # the pool holds connections
    with postgres_down(postgres_server):
        pass  # a restart, with no request meanwhile

    pages += [deploy.get(web.port, "/history/", session, timeout=READER_TIMEOUT) for _ in range(4)]

    assert [page.status for page in pages] == [200] * 8
