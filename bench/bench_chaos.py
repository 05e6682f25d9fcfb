"""Chaos, measured: how long the server setup takes to get over the loss of one of its parts.

Runs the chaos tests' own scenarios (tests/integration/test_chaos_*.py: each checks what the
test checks, so a figure is only printed for a recovery that lost nothing), each --repeat times
on fresh web and worker processes, on the deployments the tests use (PostgreSQL and Redis on
loopback, private ones where the scenario restarts them), and prints medians:

- Redis killed for 1 s under 10 debates: seconds from Redis answering again to each viewer's
  first message after it (the catch-up; median and slowest viewer);
- PostgreSQL stopped as a crash would for 3 s under 3 debates (lease 60 s): seconds from
  PostgreSQL answering again to the next contribution stored;
- a worker SIGKILLed mid-synthesis (lease 3 s, as in the tests; 60 s by default): seconds from
  the kill to the other worker holding the lease, and to the synthesis stored;
- a provider that stops answering (stall timeout 1.5 s, no retries): seconds from its request
  to the voice's failure stored, with no bytes at all and stalled mid-stream.

Usage: python bench/bench_chaos.py [--repeat 3]
"""

import argparse
import asyncio
import statistics
import sys
import tempfile
from collections.abc import Awaitable, Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.integration import cluster as deploy  # noqa: E402
from tests.integration import services  # noqa: E402
from tests.integration.debate import Deployment  # noqa: E402
from tests.integration.test_chaos_postgres import postgres_deployment, restart_postgres_mid_debates  # noqa: E402
from tests.integration.test_chaos_redis import redis_deployment, restart_redis_mid_debates  # noqa: E402
from tests.integration.test_chaos_runs import (  # noqa: E402
    HANGS,
    STALLS,
    kill_worker_mid_synthesis,
    stalled_runs,
    stalling_deployment,
)


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


async def main(repeat: int) -> None:
    if reason := deploy.services_unavailable():
        sys.exit(f"skipped: {reason}")
    with tempfile.TemporaryDirectory(prefix="bench-chaos-") as tmp:
        workdir = Path(tmp)
        with (
            services.private_redis() as redis_server,
            redis_deployment(fresh(workdir / "redis"), redis_server) as deployment,
        ):
            caught_up = await repeated(
                deployment, workdir / "redis", repeat, lambda c: restart_redis_mid_debates(deployment, c, redis_server)
            )
        print("Redis killed 1 s under 10 debates, back -> viewers caught up")
        print(f"  median viewer: {median([statistics.median(run) for run in caught_up])}")
        print(f"  slowest viewer: {median([max(run) for run in caught_up])}")

        with (
            services.private_postgres() as postgres_server,
            postgres_deployment(fresh(workdir / "postgres"), postgres_server) as deployment,
        ):
            recovered = await repeated(
                deployment,
                workdir / "postgres",
                repeat,
                lambda c: restart_postgres_mid_debates(deployment, c, postgres_server),
            )
        print("PostgreSQL down 3 s under 3 debates, back -> next contribution stored")
        print(f"  {median([r.resumed for r in recovered])}")

        with stalling_deployment(fresh(workdir / "runs")) as deployment:
            takeovers = await repeated(
                deployment, workdir / "runs" / "kill", repeat, lambda c: kill_worker_mid_synthesis(deployment, c)
            )
            stalls = await repeated(
                deployment, workdir / "runs" / "stall", repeat, lambda c: stalled_runs(deployment, c)
            )
        print("worker SIGKILLed mid-synthesis (lease 3 s)")
        print(f"  kill -> other worker holds the lease: {median([t.lease for t in takeovers])}")
        print(f"  kill -> synthesis stored: {median([t.synthesis for t in takeovers])}")
        print("provider stops answering (stall timeout 1.5 s): request -> voice failed, stored")
        print(f"  no bytes at all: {median([run[HANGS].waited for run in stalls])}")
        print(f"  headers and 3 words, then nothing: {median([run[STALLS].waited for run in stalls])}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    asyncio.run(main(parser.parse_args().repeat))
