"""Health bench: a burst of probes at a served web process on a loaded machine.

A load balancer or Kubernetes asks each web process every few seconds, and a whole tier's probes can
land at once (a restart, several balancers). A probe must say "ready" of a healthy process however
busy the machine is, and "not ready" only on a real outage. Method: one web process as the server
setup runs it (Daphne, PostgreSQL and Redis on loopback; skipped, with the reason, where they do not
answer), migrated and idle; --load processes spinning on the CPU (a machine at load --load); then
--burst GETs of each probe path sent at once (a thread and a connection each, released together by a
barrier), each with the 1 s timeout a Kubernetes probe has by default. Per path: how many answered
200, 503 and nothing within the timeout, and the p50 / p95 of the answers; medians of --runs bursts,
after one warm-up burst.

Usage: python bench/bench_health.py [--burst 200] [--load 14] [--runs 3] [--paths /healthz /readyz /livez]
"""

import argparse
import contextlib
import multiprocessing
import statistics
import sys
import tempfile
import threading
import time
import urllib.error
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.integration import cluster as deploy  # noqa: E402

PROBE_TIMEOUT = 1.0  # Kubernetes' default timeoutSeconds


def spin() -> None:
    while True:
        pass


@contextlib.contextmanager
def loaded(processes: int) -> Iterator[None]:
    """``processes`` busy loops, ended on leaving."""
    spinners = [multiprocessing.Process(target=spin, daemon=True) for _ in range(processes)]
    for spinner in spinners:
        spinner.start()
    try:
        yield
    finally:
        for spinner in spinners:
            spinner.terminate()
            spinner.join()


def burst(port: int, path: str, count: int) -> tuple[Counter, list[float]]:
    """(outcomes: 200 / 503 / "timeout" / "error", seconds of each answer) of ``count`` probes at once."""
    url = f"http://127.0.0.1:{port}{path}"
    ready = threading.Barrier(count)

    def probe(_: int) -> tuple[object, float]:
        ready.wait()
        sent = time.perf_counter()
        try:
            with deploy.LOOPBACK.open(url, timeout=PROBE_TIMEOUT) as response:
                response.read()
                status: object = response.status
        except urllib.error.HTTPError as error:
            status = error.code
        except TimeoutError:
            status = "timeout"
        except OSError as error:
            status = "timeout" if "timed out" in str(error) else "error"
        return status, time.perf_counter() - sent

    with ThreadPoolExecutor(count) as pool:
        results = list(pool.map(probe, range(count)))
    return Counter(status for status, _ in results), [took for status, took in results if status in (200, 503)]


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[int(share * (len(ordered) - 1))] if ordered else float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--burst", type=int, default=200)
    parser.add_argument("--load", type=int, default=14)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--paths", nargs="+", default=["/healthz", "/readyz", "/livez"])
    args = parser.parse_args()
    if reason := deploy.services_unavailable():
        print(f"skipped: {reason}")
        return
    with contextlib.ExitStack() as stack, tempfile.TemporaryDirectory() as workdir:
        database = stack.enter_context(deploy.postgres_database("teorema_bench"))
        env = deploy.server_env(Path(workdir) / "data", database, stack.enter_context(deploy.redis_database()))
        cluster = deploy.Cluster(Path(workdir), env, "teorema.serve")
        stack.callback(cluster.stop)
        cluster.manage("migrate", "--no-input")
        web = cluster.web("web")
        cpus = multiprocessing.cpu_count()
        print(f"{args.burst} probes at once, load {args.load} on {cpus} CPUs, {PROBE_TIMEOUT} s timeout")
        with loaded(args.load):
            for path in args.paths:
                burst(web.port, path, args.burst)  # warm-up
                runs = [burst(web.port, path, args.burst) for _ in range(args.runs)]
                ok = statistics.median(outcomes[200] for outcomes, _ in runs)
                failed = statistics.median(outcomes[503] for outcomes, _ in runs)
                lost = statistics.median(outcomes["timeout"] + outcomes["error"] for outcomes, _ in runs)
                p50 = statistics.median(percentile(took, 0.5) for _, took in runs) * 1000
                p95 = statistics.median(percentile(took, 0.95) for _, took in runs) * 1000
                answers = f"200: {ok:5.0f}  503: {failed:5.0f}  no answer: {lost:4.0f}"
                print(f"{path:9} {answers}  p50 {p50:6.0f} ms  p95 {p95:6.0f} ms")


if __name__ == "__main__":
    main()
