"""Chaos, measured: how long the server setup takes to get over the loss of one of its parts.

Runs the chaos tests' own scenarios (tests/integration/test_chaos_*.py, test_proxy.py: each checks
what the test checks, so a figure is only printed for a recovery that lost nothing: every word
once and in order at every viewer, every call made once), each --repeat times on fresh web and
worker processes, on the deployments the tests use (PostgreSQL and Redis on loopback, private ones
where the scenario stops them), and prints medians:

- probes: /healthz answered with PostgreSQL stopped, and with Redis frozen (SIGSTOP: it takes
  connections and never answers), and a signed-in page with PostgreSQL stopped: 5 requests each,
  one after the other (a client that waits up to 120 s), the statuses they got, and how many
  connections each page asked the pool for (psycopg-pool's own log lines, LOG_LEVEL=DEBUG);
- Redis killed for 1 s, and for 20 s, under 10 debates: seconds from Redis answering again to each
  viewer's first message after it (0 for a viewer that had its final page from the DB before);
- PostgreSQL stopped as a crash would for 3 s, and for 20 s, under 3 debates (lease 60 s): seconds
  from PostgreSQL answering again to the next contribution stored; how many viewers were told;
- a web process SIGKILLed mid-debate behind HAProxy, 8 viewers through it: how many were on it,
  and seconds from the kill to each one's first message from the other process;
- a worker SIGKILLed mid-synthesis (lease 3 s, as in the tests; 60 s by default): seconds from
  the kill to the other worker holding the lease, and to the synthesis stored;
- a provider that stops answering (stall timeout 1.5 s, no retries): seconds from its request
  to the voice's failure stored, with no bytes at all and stalled mid-stream.

``--load N`` runs N busy loops (a process each, as bench_health.py does) beside it all, as on a
loaded machine, and prints the load average at the end.

Usage: python bench/bench_chaos.py [--repeat 3] [--only probes redis postgres proxy runs] [--load 0]
"""

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.bench_health import loaded  # noqa: E402
from tests.fakes.provider_server import FakeProviderServer  # noqa: E402
from tests.integration import cluster as deploy  # noqa: E402
from tests.integration import services  # noqa: E402
from tests.integration.debate import VOICES, WORDS, Deployment, script_voices, set_up, write_roster  # noqa: E402
from tests.integration.test_chaos_postgres import (  # noqa: E402
    ASKED_THE_POOL,
    AWAY,
    postgres_deployment,
    restart_postgres_mid_debates,
)
from tests.integration.test_chaos_redis import redis_deployment, restart_redis_mid_debates  # noqa: E402
from tests.integration.test_chaos_runs import (  # noqa: E402
    HANGS,
    STALLS,
    kill_worker_mid_synthesis,
    stalled_runs,
    stalling_deployment,
)
from tests.integration.test_proxy import kill_a_web_process_mid_debate  # noqa: E402

SCENARIOS = ("probes", "redis", "postgres", "proxy", "runs")
PROBES = 5


async def repeated[T](
    deployment: Deployment, workdir: Path, repeat: int, scenario: Callable[[deploy.Cluster], Awaitable[T]]
) -> list[T]:
    """``scenario`` ``repeat`` times, each on processes of its own."""
    results = []
    for n in range(repeat):
        cluster = deploy.Cluster(fresh(workdir / f"run{n}"), deployment.env)
        try:
            results.append(await scenario(cluster))
        finally:
            cluster.stop()
    return results


def fresh(folder: Path) -> Path:
    folder.mkdir(parents=True)
    return folder


def median(values: list[float]) -> str:
    return f"{statistics.median(values):.2f} s (runs: {', '.join(f'{v:.2f}' for v in values)})"


def probed(port: int, path: str = "/healthz", session: str = "") -> tuple[list[float], set[int]]:
    """Seconds each of PROBES requests took to be answered, and the statuses they got."""
    took, statuses = [], set()
    for _ in range(PROBES):
        began = time.monotonic()
        statuses.add(deploy.get(port, path, session, timeout=120).status)
        took.append(time.monotonic() - began)
    return took, statuses


async def probes(workdir: Path) -> None:
    with (
        services.private_postgres() as postgres_server,
        postgres_deployment(fresh(workdir / "pg"), postgres_server) as dep,
    ):
        cluster = deploy.Cluster(fresh(workdir / "pg-run"), dep.env)
        try:
            web = cluster.web("web", LOG_LEVEL="DEBUG")
            postgres_server.stop()
            try:
                stopped = probed(web.port)
                asked = web.output().count(ASKED_THE_POOL)
                page = probed(web.port, "/history/", dep.credentials.session)
                asked = web.output().count(ASKED_THE_POOL) - asked
            finally:
                postgres_server.start()
        finally:
            cluster.stop()
    with services.private_redis() as redis_server, redis_deployment(fresh(workdir / "redis"), redis_server) as dep:
        cluster = deploy.Cluster(fresh(workdir / "redis-run"), dep.env)
        try:
            web = cluster.web("web")
            with redis_server.frozen():
                frozen = probed(web.port)
        finally:
            cluster.stop()
    for what, (took, statuses) in {
        "/healthz with PostgreSQL stopped": stopped,
        "a signed-in page (/history/) with PostgreSQL stopped": page,
        "/healthz with Redis frozen": frozen,
    }.items():
        print(f"{what}: {median(took)}, answered {sorted(statuses)}")
    print(f"  connections the pool was asked for per page: {asked / PROBES:g}")


async def redis(workdir: Path, repeat: int) -> None:
    with services.private_redis() as redis_server, redis_deployment(fresh(workdir), redis_server) as deployment:
        for down in (1.0, 20.0):
            caught_up = await repeated(
                deployment,
                workdir / f"down{down:g}",
                repeat,
                lambda c, down=down: restart_redis_mid_debates(deployment, c, redis_server, down),
            )
            print(f"Redis killed {down:g} s under 10 debates, back -> viewers caught up (words lost 0, doubled 0)")
            print(f"  median viewer: {median([statistics.median(run) for run in caught_up])}")
            print(f"  slowest viewer: {median([max(run) for run in caught_up])}")


async def postgres(workdir: Path, repeat: int) -> None:
    with (
        services.private_postgres() as postgres_server,
        postgres_deployment(fresh(workdir), postgres_server) as deployment,
    ):
        for down in (3.0, AWAY):
            recovered = await repeated(
                deployment,
                workdir / f"down{down:g}",
                repeat,
                lambda c, down=down: restart_postgres_mid_debates(deployment, c, postgres_server, down),
            )
            told = [sum(r.told) for r in recovered]
            print(f"PostgreSQL down {down:g} s under 3 debates, back -> next contribution stored (calls twice 0)")
            print(f"  {median([r.resumed for r in recovered])}; viewers told in words: {told} of 3")


async def proxy(workdir: Path, repeat: int) -> None:
    with (
        FakeProviderServer() as server,
        deploy.postgres_database() as database_url,
        deploy.redis_database() as redis_url,
    ):
        script_voices(server, VOICES, WORDS, moderator_tps=40.0)
        roster = write_roster(fresh(workdir) / "roster.toml", server, VOICES)
        deployment = set_up(workdir, server, database_url, redis_url, roster)
        handovers = await repeated(
            deployment, workdir / "kill", repeat, lambda c: kill_a_web_process_mid_debate(deployment, c)
        )
    print("a web process SIGKILLed mid-debate behind HAProxy, 8 viewers (words lost 0, doubled 0)")
    print(f"  viewers it held: {[h.moved for h in handovers]}")
    first = [statistics.median(h.recovered) for h in handovers]
    print(f"  kill -> a moved viewer's first message from the other process, median viewer: {median(first)}")
    print(f"  slowest: {median([max(h.recovered) for h in handovers])}")


async def runs(workdir: Path, repeat: int) -> None:
    with stalling_deployment(fresh(workdir)) as deployment:
        takeovers = await repeated(
            deployment, workdir / "kill", repeat, lambda c: kill_worker_mid_synthesis(deployment, c)
        )
        stalls = await repeated(deployment, workdir / "stall", repeat, lambda c: stalled_runs(deployment, c))
    print("worker SIGKILLed mid-synthesis (lease 3 s)")
    print(f"  kill -> other worker holds the lease: {median([t.lease for t in takeovers])}")
    print(f"  kill -> synthesis stored: {median([t.synthesis for t in takeovers])}")
    print("provider stops answering (stall timeout 1.5 s): request -> voice failed, stored")
    print(f"  no bytes at all: {median([run[HANGS].waited for run in stalls])}")
    print(f"  headers and 3 words, then nothing: {median([run[STALLS].waited for run in stalls])}")


async def main(repeat: int, only: list[str], load: int) -> None:
    if reason := deploy.services_unavailable():
        sys.exit(f"skipped: {reason}")
    with tempfile.TemporaryDirectory(prefix="bench-chaos-") as tmp, loaded(load):
        workdir = Path(tmp)
        if "probes" in only:
            await probes(fresh(workdir / "probes"))
        if "redis" in only:
            await redis(workdir / "redis", repeat)
        if "postgres" in only:
            await postgres(workdir / "postgres", repeat)
        if "proxy" in only:
            await proxy(workdir / "proxy", repeat)
        if "runs" in only:
            await runs(workdir / "runs", repeat)
        if load:
            print(
                f"beside {load} busy loops on {os.cpu_count()} cores: load average {os.getloadavg()[0]:.1f} at the end"
            )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--only", nargs="+", choices=SCENARIOS, default=list(SCENARIOS))
    parser.add_argument("--load", type=int, default=0, help="busy loops beside the bench (a loaded machine)")
    arguments = parser.parse_args()
    if arguments.load < 0:
        parser.error(f"--load takes a number of busy loops, 0 or more, not {arguments.load}")
    asyncio.run(main(arguments.repeat, arguments.only, arguments.load))
