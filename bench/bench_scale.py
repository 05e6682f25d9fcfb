"""Scale bench: concurrent debates in the single-process mode and in the server setup.

Modes: (a) single: one Daphne, SQLite, in-memory channel layer, debates on Daphne's loop;
(b) server: one Daphne + one debate_worker, PostgreSQL and Redis on loopback (skipped, with the
reason, when they are unreachable). The fake provider server runs in this process; every voice
streams --words tokens at --tps tokens/s after --first-token s; a teorema debate of 3 voices
is 7 calls. Each token is unique ("<model>r<request>w<i>") and the fake server stamps when it
writes it (time.time()); a websocket viewer per debate, in this process, stamps when the
fragment carrying it arrives. Per repetition, --debates debates are submitted at once through
the JSON API, each watched until its socket closes (the run is over):

- debates per minute: debates / (last socket closed - first submission) * 60;
- chunk-to-client latency: arrival - emission for every token, p50 and p95 (it includes the
  live sink's coalescing window, TEOREMA_FLUSH_INTERVAL_MS, 75 ms by default);
- CPU per 1,000 streamed tokens: utime+stime (/proc/<pid>/stat) of Teorema's processes over
  the repetition / tokens emitted * 1000 (PostgreSQL and Redis reported apart in mode b);
- RSS per running debate: (peak summed VmRSS while running - VmRSS before) / debates, for the
  first batch after a warm-up debate (later batches reuse the memory it freed).
Idle viewers, on fresh processes after one warm-up debate: 3 steps of --viewers sockets opened
on a debate whose voices never answer; the web process's VmRSS delta / sockets per step, the
earlier sockets staying open. Other figures are medians over --repeat repetitions. The fake
providers and the viewers share the machine's cores with the servers, so the figures are a
floor for a real deployment, not a ceiling. Loopback only.

Usage: python bench/bench_scale.py [--debates 8] [--repeat 3] [--viewers 100] [--mode single server]
"""

import argparse
import asyncio
import contextlib
import html
import os
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.fakes.provider_server import FakeProviderServer, FakeRequest, Script  # noqa: E402
from tests.integration import cluster as deploy  # noqa: E402
from tests.integration.debate import MODERATOR, PANEL, roster_toml, step_of  # noqa: E402
from tests.integration.viewer import Viewer, watch  # noqa: E402

VOICES = ("it-alpha", "it-beta", "it-gamma")
IDLE_TOML = """
[[panelists]]
name = "it-idle"
provider = "Fake"
model = "it-idle"
family = "idle"

[[panels]]
name = "Idle"
slug = "idle"
members = ["it-idle"]
moderator = "it-idle"
"""
APPEND = re.compile(r'<div hx-swap-oob="beforeend:#[^"]+">(.*?)</div>', re.S)
TOKEN = re.compile(r"it-\w+r\d+w\d+")
TICK = os.sysconf("SC_CLK_TCK")


class StampedServer(FakeProviderServer):
    """The fake provider, noting when each token is written to the socket."""

    def __init__(self) -> None:
        super().__init__()
        self.emitted: dict[str, float] = {}
        self.tokens = 0

    def _route(self, path: str, body: dict):
        wire, parsed = super()._route(path, body)
        return (wire and _Stamping(wire, self)), parsed


class _Stamping:
    def __init__(self, wire, server: StampedServer) -> None:
        self.wire, self.server = wire, server

    def __getattr__(self, name: str):
        return getattr(self.wire, name)

    def piece(self, model: str, text: str) -> bytes:
        self.server.emitted[text.strip()] = time.time()
        self.server.tokens += 1
        return self.wire.piece(model, text)


def answer(request: FakeRequest, words: int) -> str:
    # The gates drop an answer sharing no term with the question: name its subject first.
    tokens = "Replicas or sharding: " + " ".join(f"{request.model}r{request.number}w{i}" for i in range(words))
    if step_of(request) == "synthesis":
        return f"## Consensus\n{tokens}\n\n## Disagreements\nNone.\n\n## Verdict\nReplicas."
    return tokens


def cpu_seconds(pid: int, children: bool = False) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = int(fields[11]) + int(fields[12]) + (int(fields[13]) + int(fields[14]) if children else 0)
    return ticks / TICK


def rss_mib(pid: int) -> float:
    line = next(x for x in Path(f"/proc/{pid}/status").read_text().splitlines() if x.startswith("VmRSS:"))
    return int(line.split()[1]) / 1024


def backing_pids() -> dict[str, int]:
    """Redis's pid and PostgreSQL's postmaster (whose child times include exited backends)."""
    import psycopg
    import redis

    pids = {"redis": int(redis.Redis(**deploy.REDIS).info("server")["process_id"])}
    with psycopg.connect(deploy.PG_SERVER) as pg:
        data_dir = pg.execute("SHOW data_directory").fetchone()[0]
    pids["postgres"] = int(Path(data_dir, "postmaster.pid").read_text().split()[0])
    return pids


@contextlib.contextmanager
def deployment(mode: str, server: StampedServer, workdir: Path, debates: int) -> Iterator[tuple]:
    """Start the mode's processes; yield (web, Teorema's processes, credentials)."""
    with contextlib.ExitStack() as stack:
        if mode == "server":
            database = stack.enter_context(deploy.postgres_database("teorema_bench"))
            env = deploy.server_env(workdir / "data", database, stack.enter_context(deploy.redis_database()))
        else:
            env = deploy.server_env(workdir / "data", "", "") | {"TEOREMA_RUN_IN_PROCESS": "1"}
            env = {k: v for k, v in env.items() if k not in {"DATABASE_URL", "REDIS_URL"}}
        env |= {"TEOREMA_QUESTIONS_PER_HOUR": "100000"}
        cluster = deploy.Cluster(workdir, env)
        stack.callback(cluster.stop)
        cluster.manage("migrate", "--no-input")
        (workdir / "roster.toml").write_text(roster_toml(server, dict.fromkeys(VOICES, 0.0)) + IDLE_TOML)
        cluster.manage("roster", "import", str(workdir / "roster.toml"))
        credentials = deploy.create_user(cluster, "bench")
        web = cluster.web("web")
        processes = [web]
        if mode == "server":
            processes.append(cluster.worker("worker", "--concurrency", str(debates), "--interval", "0.2"))
        yield web, processes, credentials


async def run_batch(web: deploy.Process, credentials: deploy.Credentials, count: int) -> list[Viewer]:
    """Submit ``count`` debates at once, each watched by one socket until the run is over."""

    async def one(index: int) -> Viewer:
        text = f"Replicas or sharding? (bench {time.time():.0f}-{index})"
        question_id = await asyncio.to_thread(deploy.ask, web, credentials, text, PANEL)
        return await watch(Viewer(web.port), question_id, credentials.session)

    return await asyncio.wait_for(asyncio.gather(*(one(i) for i in range(count))), 600)


def latencies(viewers: list[Viewer], emitted: dict[str, float]) -> list[float]:
    found = []
    for viewer in viewers:
        for arrived, message in viewer.messages:
            for chunk in APPEND.findall(message):
                found += [arrived - emitted[t] for t in TOKEN.findall(html.unescape(chunk)) if t in emitted]
    return found


async def measure_debates(server: StampedServer, web, processes, credentials, count: int) -> dict:
    pids = [p.pid for p in processes]
    extra = backing_pids() if len(processes) > 1 else {}
    cpu0 = sum(cpu_seconds(pid) for pid in pids)
    extra0 = {name: cpu_seconds(pid, children=True) for name, pid in extra.items()}
    rss0, tokens0, peak = sum(rss_mib(pid) for pid in pids), server.tokens, 0.0
    started = time.time()
    batch = asyncio.create_task(run_batch(web, credentials, count))
    while not batch.done():
        peak = max(peak, sum(rss_mib(pid) for pid in pids))
        await asyncio.sleep(0.1)
    viewers = batch.result()
    if not all(v.messages for v in viewers):
        raise RuntimeError(f"a viewer got nothing ({[v.close_code for v in viewers]}):\n{web.output()[-3000:]}")
    ended = max(v.messages[-1][0] for v in viewers)
    tokens = server.tokens - tokens0
    lags = sorted(latencies(viewers, server.emitted))
    over = sum("is-over" in v.messages[-1][1] and "status-done" in v.messages[-1][1] for v in viewers)
    figures = {
        "debates/min": count / (ended - started) * 60,
        "latency p50 ms": statistics.median(lags) * 1000,
        "latency p95 ms": lags[int(0.95 * (len(lags) - 1))] * 1000,
        "CPU s/1k tokens": (sum(cpu_seconds(pid) for pid in pids) - cpu0) / tokens * 1000,
        "RSS MiB/debate": (peak - rss0) / count,
        "finished": over,
        "tokens streamed": tokens,
    }
    for name, pid in extra.items():
        figures[f"{name} CPU s/1k tokens"] = (cpu_seconds(pid, children=True) - extra0[name]) / tokens * 1000
    return figures


async def measure_idle(web, credentials, sockets: int, repeat: int) -> list[float]:
    """MiB per idle viewer, per step of ``sockets`` more open sockets on a silent debate."""
    question_id = await asyncio.to_thread(deploy.ask, web, credentials, "An idle question.", "idle")
    tasks, per_viewer = [], []
    for _ in range(repeat):
        before = rss_mib(web.pid)
        for _ in range(sockets):
            opened = asyncio.Event()
            tasks.append(asyncio.create_task(watch(Viewer(web.port), question_id, credentials.session, opened)))
            await asyncio.wait_for(opened.wait(), 30)
        await asyncio.sleep(1)  # every snapshot sent
        per_viewer.append((rss_mib(web.pid) - before) / sockets)
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    return per_viewer


async def bench_mode(mode: str, args: argparse.Namespace, server: StampedServer) -> dict:
    with (
        tempfile.TemporaryDirectory(prefix=f"teorema-bench-{mode}-") as workdir,
        deployment(mode, server, Path(workdir), args.debates) as (web, processes, credentials),
    ):
        await measure_debates(server, web, processes, credentials, 1)  # warm-up
        runs = [await measure_debates(server, web, processes, credentials, args.debates) for _ in range(args.repeat)]
    figures = {key: statistics.median(run[key] for run in runs) for key in runs[0]}
    # Later batches reuse memory the first one freed: its growth is the cost of a running debate.
    figures["RSS MiB/debate"] = runs[0]["RSS MiB/debate"]
    figures["finished"] = f"{sum(run['finished'] for run in runs)}/{args.debates * args.repeat}"
    # Fresh processes for the idle viewers, for the same reason.
    with (
        tempfile.TemporaryDirectory(prefix=f"teorema-bench-{mode}-") as workdir,
        deployment(mode, server, Path(workdir), args.debates) as (web, processes, credentials),
    ):
        await measure_debates(server, web, processes, credentials, 1)
        figures["RSS MiB/idle viewer"] = statistics.median(await measure_idle(web, credentials, args.viewers, 3))
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--debates", type=int, default=8, help="debates running at once")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--viewers", type=int, default=100, help="idle sockets opened per step (3 steps)")
    parser.add_argument("--words", type=int, default=60, help="tokens per answer")
    parser.add_argument("--tps", type=float, default=100.0, help="tokens per second per voice")
    parser.add_argument("--first-token", type=float, default=0.1, help="seconds before the first token")
    parser.add_argument("--mode", nargs="+", choices=["single", "server"], default=["single", "server"])
    args = parser.parse_args()
    print(__doc__.split("Usage:")[0])
    print(f"Settings: {args.debates} debates at once, {args.repeat} repetitions, {len(VOICES)} voices (7 calls),")
    print(f"{args.words} tokens per answer, {args.tps:g} tokens/s after {args.first_token:g} s; {os.cpu_count()} CPUs.")
    with StampedServer() as server:
        pace = Script(answer=lambda r: answer(r, args.words), first_token_delay=args.first_token,
                      tokens_per_second=args.tps)  # fmt: skip
        for model in (*VOICES, MODERATOR):
            server.script(model, pace)
        server.script("it-idle", Script(fault="hang"))
        for mode in args.mode:
            if mode == "server" and (reason := deploy.services_unavailable()):
                print(f"\n(b) server: skipped, {reason}")
                continue
            figures = asyncio.run(bench_mode(mode, args, server))
            print(f"\n({'a' if mode == 'single' else 'b'}) {mode}:")
            for key, value in figures.items():
                print(f"  {key:24} {value:.3f}" if isinstance(value, float) else f"  {key:24} {value}")


if __name__ == "__main__":
    main()
