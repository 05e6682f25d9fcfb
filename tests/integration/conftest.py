"""A deployment of the server setup for the integration tests: PostgreSQL, Redis, fake providers.

Tests marked ``services`` skip when PostgreSQL or Redis is unreachable on loopback, unless
TEOREMA_REQUIRE_SERVICES=1 (set by .ci/run once it has started both): then they fail.
"""

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fakes.provider_server import FakeProviderServer
from tests.integration import cluster as deploy
from tests.integration.debate import VOICES, WORDS, Deployment, script_voices, set_up, write_roster


@pytest.fixture(scope="module")
def deployment(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Deployment]:
    """A migrated PostgreSQL database and a Redis DB of our own, the roster, a user."""
    deploy.require_services()
    workdir: Path = tmp_path_factory.mktemp("deployment")
    with FakeProviderServer() as server, deploy.postgres_database() as database_url, deploy.redis_database() as url:
        script_voices(server, VOICES, WORDS, moderator_tps=40.0)
        yield set_up(workdir, server, database_url, url, write_roster(workdir / "roster.toml", server, VOICES))


@pytest.fixture
def cluster(deployment: Deployment, tmp_path: Path) -> Iterator[deploy.Cluster]:
    """Processes of the deployment started by one test, all ended afterwards (also on failure)."""
    processes = deploy.Cluster(tmp_path, deployment.env)
    try:
        yield processes
    finally:
        processes.stop()
