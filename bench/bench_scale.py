"""Scale bench: concurrent debates streaming to viewers, single process and web + worker.

Modes: (a) single: one Daphne, SQLite, in-memory channel layer, debates on Daphne's loop, as
`make run` starts it; (b) server: one Daphne + --workers debate_workers, PostgreSQL and Redis on
loopback (skipped, with the reason, when they are unreachable). The fake provider runs in a
process of its own (bench/fakeproc.py), so its 150 paced streams do not take Teorema's CPU;
every voice streams --words unique tokens at --tps tokens/s after --first-token s, and a teorema
debate of 3 voices is 7 calls. The fake stamps (time.time(), one clock for the machine) when it
writes each token; a websocket viewer per debate, in this process, stamps when the fragment
carrying it arrives. Per repetition, --debates debates are submitted at once through the JSON
API, each watched until its socket closes (the run is over):

- chunk-to-client latency: arrival - write for every token streamed to a viewer (not those
  already in the snapshot it connected to: a count apart), p50 and p95; it includes the live
  sink's coalescing window (TEOREMA_FLUSH_INTERVAL_MS, 50 ms, while busy) for all but a voice's
  first words;
- first token: the same for the first token of each call (what a person waits for beyond the
  provider's own time to first token);
- CPU per 1,000 tokens: utime+stime (/proc/<pid>/stat) of Teorema's processes over the
  repetition / tokens written * 1000; PostgreSQL (postmaster with its reaped backends) and Redis
  apart in mode b (shared servers: upper bounds). With --sample, py-spy on each of Teorema's
  processes (bench/spy.py: the GIL holder's stack, 100 a second) splits that CPU by component;
- machine busy at the start: the share of all CPUs not idle (/proc/stat) over the first
  --start-window seconds after the first submission, when every debate starts at once;
- garbage collections: every Teorema process starts with bench/gcwatch on its PYTHONPATH, which
  logs each collection of 2 ms or more (a pause of the whole process, its event loop with it);
  the longest during the batch, and how many took over 20 ms;
- debates per minute: debates / (last socket closed - first submission) * 60; websocket
  messages per 1,000 tokens; RSS per running debate (peak summed VmRSS while running - before) /
  debates, first batch after a warm-up debate.
- streams at once: the most calls streaming at one moment (from the fake's word writes).
- admission, POST to first call: each question's text carries a tag ("bench <batch>-<i>"), so
  every prompt of its run does; the fake stamps (time.time()) each request's arrival with the
  tag it finds in the body. From the moment this process sends the POST (each on a thread of
  its own, so none waits for another) to the first of its run's requests at the fake, p50, p95;
- the floor under it: before the batch, as many GETs of /healthz (one database query and a
  message through the channel layer) sent at once, a thread and a connection each: what Daphne
  and Django alone make that many requests at once wait, p50, p95;
- the end, last byte to final message: from the fake writing the last byte of the run's last
  response (stamped when it hands over the stream's closing events) to the viewer receiving
  the socket's last message (the final page), p50, p95.
With --stagger S the submissions spread evenly over S seconds instead of all at once: with all at
once every debate crosses each step (a round's end, its votes stored and judged, the next
round's first words) at the same moment, the worst case for latency; spread, the same number of
debates still run together (see streams at once) as they would arrive from a team.
Idle viewers (--viewers > 0), on fresh processes: 3 steps of --viewers sockets opened on a debate
whose voice never answers; the web process's VmRSS delta / sockets per step. Other figures are
medians over --repeat repetitions; the load average is printed before and after. The viewers
share the machine's 2 cores with the servers, so the figures are a floor for a real deployment.
With --dump FILE, the last repetition's tokens go there as JSON, [seconds from the first
submission to the fake's write, lag to the viewer, token] each (a call's first token ends in
".w0"): where in a run the late ones are. With --twisted-writes the web processes run
bench/serve_buffered.py, Twisted's buffered socket writes instead of teorema.serve.write_at_once:
the other side of its A/B. With --fixed-window the servers hold words the whole flush window
whatever their load (TEOREMA_FLUSH_ADAPTS=0, the behaviour before live.pace): the other side of
that A/B. --debates takes several counts (1 10 50 100): each is measured in turn on the same
processes, its figures printed apart (the curve). Loopback only.

One debate, many viewers (--watchers N): instead of the batch, pairs of one debate, the same panel:
unwatched (the probe, one viewer in this process), then watched (the probe and N viewers in
--watcher-processes processes of their own, tests/integration/crowd.py: the same session, 8
sockets opening at a time in each, arrivals stamped with time.time()). The fake holds every call's
first word (FakeProcess.hold) from before the POST until every viewer has its connect snapshot,
then lets them go: every viewer watches from the first word, however long a thousand take to
connect. Medians over the pairs:
- every viewer's lag: arrival - write for each token streamed to it (not those in its connect
  snapshot, as above), p50 and p95 over all N viewers' tokens together, and the slowest viewer's
  own p95; (viewer, token) pairs never at a viewer and viewers whose last message is not the final
  page (both summed over the pairs); last provider byte to each viewer's final page, p50, slowest;
- connecting: the first socket opened to the last snapshot received, the web process's CPU
  meanwhile; RSS MiB per idle viewer: its VmRSS with every viewer's snapshot sent - just before the
  first opened, / N (the run waits for its first word meanwhile);
- the debate unwatched and watched, with the median of the pairs' ratios (watched / unwatched): the
  probe's first token p50, p95 (arrival - write for each call's first token); the run's length,
  from its first word written to its last provider byte (the fake's stamps; not from its first
  request, which the hold keeps waiting for as long as the viewers take); CPU seconds of each of
  Teorema's processes from letting the words go to the last socket closed.

Usage: python bench/bench_scale.py [--debates 50 ...] [--repeat 3] [--viewers 0] [--mode single server] [--workers 1]
       [--sample] [--stagger 0] [--start-window 2] [--words 60] [--dump FILE] [--twisted-writes] [--fixed-window]
       [--watchers 0] [--watcher-processes 4] [--window MS]
With --window MS the flush window is MS ms (TEOREMA_FLUSH_INTERVAL_MS) instead of the default.
"""

import argparse
import asyncio
import contextlib
import json
import os
import statistics
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GCWATCH = ROOT / "bench" / "gcwatch"  # put on the servers' PYTHONPATH: logs their collections
GC_LOGS = "gc"  # where they log them: a folder beside the processes' own logs
sys.path.insert(0, str(ROOT))

from bench.fakeproc import FakeProcess, Pace  # noqa: E402
from bench.spy import Spy  # noqa: E402
from tests.integration import cluster as deploy  # noqa: E402
from tests.integration.crowd import Crowd, finished, snapshot_or_end, streamed_words  # noqa: E402
from tests.integration.debate import MODERATOR, PANEL, roster_toml  # noqa: E402
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
# The gates drop an answer sharing no term with the question: name its subject, after the
# unique tokens, so that a call's first token is one the bench can follow.
SUFFIX = " Replicas or sharding.\n\nANSWER: Add read replicas"  # one answer line: no judge needed, 7 calls
SYNTHESIS = "## Verdict\nReplicas.\n\n## Disagreements\nNone.\n\n## Consensus\n"
TAG = r"bench \d+-\d+"  # a debate's tag in its question (run_batch): the fake finds its run by it
TICK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int, children: bool = False) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = int(fields[11]) + int(fields[12]) + (int(fields[13]) + int(fields[14]) if children else 0)
    return ticks / TICK


def rss_mib(pid: int) -> float:
    line = next(x for x in Path(f"/proc/{pid}/status").read_text().splitlines() if x.startswith("VmRSS:"))
    return int(line.split()[1]) / 1024


def machine_ticks() -> tuple[int, int]:
    """(all, idle) CPU ticks of the whole machine so far (/proc/stat's first line; idle + iowait)."""
    ticks = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    return sum(ticks), ticks[3] + ticks[4]


def busy_share(before: tuple[int, int], after: tuple[int, int]) -> float:
    """Percent of all CPUs busy between two machine_ticks()."""
    total, idle = after[0] - before[0], after[1] - before[1]
    return 100 * (1 - idle / total) if total else 0.0


def gc_pauses(processes: list, since: float, until: float) -> list[float]:
    """Seconds each garbage collection of 2 ms or more took in Teorema's processes, of those that
    ended between ``since`` and ``until`` (bench/gcwatch, in the deployment's folder)."""
    pauses = []
    for process in processes:
        log = process.log.parent / GC_LOGS / str(process.pid)
        for line in log.read_text().splitlines() if log.exists() else []:
            ended, took, _generation = line.split()
            if since <= float(ended) <= until:
                pauses.append(float(took))
    return pauses


def load() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


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
def deployment(
    mode: str,
    fake: FakeProcess,
    workdir: Path,
    debates: int,
    workers: int = 1,
    serve: str = "teorema.serve",
    tuning: dict[str, str] | None = None,
) -> Iterator[tuple]:
    """Start the mode's processes, the web one running ``serve``, with ``tuning``'s settings
    (the flush window's); yield (web, Teorema's processes, credentials)."""
    with contextlib.ExitStack() as stack:
        if mode == "server":
            database = stack.enter_context(deploy.postgres_database("teorema_bench"))
            env = deploy.server_env(workdir / "data", database, stack.enter_context(deploy.redis_database()))
        else:
            env = deploy.server_env(workdir / "data", "", "") | {"TEOREMA_RUN_IN_PROCESS": "1"}
            env = {k: v for k, v in env.items() if k not in {"DATABASE_URL", "REDIS_URL"}}
        gc_logs = workdir / GC_LOGS
        gc_logs.mkdir()
        path = os.pathsep.join(filter(None, [str(GCWATCH), env.get("PYTHONPATH", "")]))
        env |= {"TEOREMA_QUESTIONS_PER_HOUR": "100000", "PYTHONPATH": path, "TEOREMA_BENCH_GC_LOG": str(gc_logs)}
        env |= tuning or {}
        cluster = deploy.Cluster(workdir, env, serve)
        stack.callback(cluster.stop)
        cluster.manage("migrate", "--no-input")
        (workdir / "roster.toml").write_text(roster_toml(fake, dict.fromkeys(VOICES, 0.0)) + IDLE_TOML)
        cluster.manage("roster", "import", str(workdir / "roster.toml"))
        credentials = deploy.create_user(cluster, "bench")
        web = cluster.web("web")
        processes = [web]
        if mode == "server":
            share = str(-(-debates // workers))  # each can take its share of the batch, rounded up
            for number in range(workers):
                processes.append(cluster.worker(f"worker{number + 1}", "--concurrency", share))
        yield web, processes, credentials


@dataclass
class Watched:
    """One submitted debate: its tag (in its text, so in every prompt of its run), when its POST
    was sent, and its viewer."""

    tag: str
    posted: float
    viewer: Viewer


async def run_batch(
    web: deploy.Process, credentials: deploy.Credentials, count: int, stagger: float = 0.0
) -> list[Watched]:
    """Submit ``count`` debates, evenly over ``stagger`` seconds (0: at once: a thread each, so
    no POST waits for a free one), each watched by one socket until the run is over."""
    batch = time.time_ns() // 1_000_000
    loop = asyncio.get_running_loop()

    def post(tag: str) -> tuple[float, int]:
        posted = time.time()
        return posted, deploy.ask(web, credentials, f"Replicas or sharding? ({tag})", PANEL)

    async def one(index: int, pool: ThreadPoolExecutor) -> Watched:
        await asyncio.sleep(index * stagger / count)
        tag = f"bench {batch}-{index}"
        posted, question_id = await loop.run_in_executor(pool, post, tag)
        return Watched(tag, posted, await watch(Viewer(web.port), question_id, credentials.session))

    with ThreadPoolExecutor(count) as pool:
        return await asyncio.wait_for(asyncio.gather(*(one(i, pool) for i in range(count))), 900)


def arrivals(viewers: list[Viewer]) -> tuple[dict[tuple[int, str], float], set[tuple[int, str]]]:
    """(viewer, token) -> when the viewer first received it streamed, and the (viewer, token) pairs
    its connect snapshot already held (crowd.streamed_words, for each viewer)."""
    streamed: dict[tuple[int, str], float] = {}
    shown: set[tuple[int, str]] = set()
    for number, viewer in enumerate(viewers):
        words, snapshot = streamed_words(viewer)
        streamed |= {(number, token): at for token, at in words.items()}
        shown |= {(number, token) for token in snapshot}
    return streamed, shown


def http_floor(web: deploy.Process, count: int) -> list[float]:
    """Seconds each of ``count`` GETs of /healthz sent at once took (a thread each, a connection
    each, as the POSTs): what Daphne and Django alone make ``count`` requests at once wait."""
    url = f"http://127.0.0.1:{web.port}/healthz"
    ready = threading.Barrier(count)

    def get(_: int) -> float:
        ready.wait()
        sent = time.perf_counter()
        with deploy.LOOPBACK.open(url, timeout=30) as response:
            response.read()
        return time.perf_counter() - sent

    with ThreadPoolExecutor(count) as pool:
        return list(pool.map(get, range(count)))


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[int(share * (len(ordered) - 1))]


def streams_at_once(written: dict[str, float]) -> int:
    """The most calls streaming at the same moment (first word to last word written)."""
    spans: dict[str, list[float]] = {}
    for token, at in written.items():
        span = spans.setdefault(token.rsplit(".", 1)[0], [at, at])
        span[0], span[1] = min(span[0], at), max(span[1], at)
    edges = sorted([(start, 1) for start, _ in spans.values()] + [(end, -1) for _, end in spans.values()])
    running = peak = 0
    for _, step in edges:
        running += step
        peak = max(peak, running)
    return peak


async def measure_debates(
    web,
    processes,
    credentials,
    count: int,
    fake: FakeProcess,
    sample: bool = False,
    stagger: float = 0.0,
    dump: Path | None = None,
    start_window: float = 2.0,
) -> dict:
    floor = await asyncio.to_thread(http_floor, web, count)
    pids = [p.pid for p in processes]
    extra = backing_pids() if len(processes) > 1 else {}
    fake.timings()  # from here on
    with Spy(pids if sample else []) as spy:
        each0 = {p.name: cpu_seconds(p.pid) for p in processes}
        extra0 = {name: cpu_seconds(pid, children=True) for name, pid in extra.items()}
        rss0, peak = sum(rss_mib(pid) for pid in pids), 0.0
        started, machine0, start_busy = time.time(), machine_ticks(), None
        batch = asyncio.create_task(run_batch(web, credentials, count, stagger))
        while not batch.done():
            peak = max(peak, sum(rss_mib(pid) for pid in pids))
            if start_busy is None and time.time() - started >= start_window:
                start_busy = busy_share(machine0, machine_ticks())
            await asyncio.sleep(0.1)
        watched = batch.result()
        viewers = [one.viewer for one in watched]
        each = {p.name: cpu_seconds(p.pid) - each0[p.name] for p in processes}
        cpu = sum(each.values())
        extra_cpu = {name: cpu_seconds(pid, children=True) - extra0[name] for name, pid in extra.items()}
    written, requests, ends = fake.timings()
    if not all(v.messages for v in viewers):
        raise RuntimeError(f"a viewer got nothing ({[v.close_code for v in viewers]}):\n{web.output()[-3000:]}")
    ended = max(v.messages[-1][0] for v in viewers)
    pauses = gc_pauses(processes, started, ended)
    seen, shown = arrivals(viewers)
    timeline = sorted(
        (written[token] - started, at - written[token], token) for (_, token), at in seen.items() if token in written
    )
    lags = [lag for _, lag, _ in timeline]
    firsts = [lag for _, lag, token in timeline if token.endswith(".w0")]
    if dump is not None:
        await asyncio.to_thread(dump.write_text, json.dumps(timeline))
    first_call: dict[str, float] = {}
    for request in requests:
        first_call[request.tag] = min(request.at, first_call.get(request.tag, request.at))
    admission = [first_call[one.tag] - one.posted for one in watched]
    to_final = [one.viewer.messages[-1][0] - ends[one.tag] for one in watched]
    tokens = len(written)
    over = sum(finished(v) for v in viewers)
    figures = {
        "chunk-to-client p50 ms": statistics.median(lags) * 1000,
        "chunk-to-client p95 ms": percentile(lags, 0.95) * 1000,
        "first token p50 ms": statistics.median(firsts) * 1000,
        "first token p95 ms": percentile(firsts, 0.95) * 1000,
        "POST to first call p50 ms": statistics.median(admission) * 1000,
        "POST to first call p95 ms": percentile(admission, 0.95) * 1000,
        "/healthz at once p50 ms (the floor)": statistics.median(floor) * 1000,
        "/healthz at once p95 ms (the floor)": percentile(floor, 0.95) * 1000,
        "last byte to final message p50 ms": statistics.median(to_final) * 1000,
        "last byte to final message p95 ms": percentile(to_final, 0.95) * 1000,
        f"machine busy, first {start_window:g} s %": start_busy if start_busy is not None else float("nan"),
        "CPU s/1k tokens": cpu / tokens * 1000,
        "GC pause, longest ms": max(pauses, default=0) * 1000,
        "GC pauses over 20 ms": sum(took > 0.02 for took in pauses),
    }
    if len(each) > 1:
        figures |= {f"  {name} process": seconds / tokens * 1000 for name, seconds in each.items()}
    details = Counter({name: n for name, n in spy.counts.items() if " @ " in name})
    busy = Counter({name: n for name, n in spy.counts.items() if " @ " not in name})
    for name, share in busy.most_common():
        figures[f"  {name}"] = cpu * share / busy.total() / tokens * 1000
    if details and os.environ.get("BENCH_DETAILS"):  # where to look next: the busiest frames of ours
        for name, share in details.most_common(25):
            print(f"    {cpu * share / busy.total() / tokens * 1000:.3f}  {name}")
    for name, seconds in extra_cpu.items():
        figures[f"{name} CPU s/1k tokens"] = seconds / tokens * 1000
    figures |= {
        "debates/min": count / (ended - started) * 60,
        "ws messages/1k tokens": sum(len(v.messages) for v in viewers) / tokens * 1000,
        "RSS MiB/debate": (peak - rss0) / count,
        "tokens streamed": tokens,
        "streams at once, at most": streams_at_once(written),
        "tokens never at a viewer": len(written.keys() - {token for _, token in seen.keys() | shown}),
        "tokens in a connect snapshot": len(shown),
        "finished": over,
    }
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


async def measure_watched(
    web: deploy.Process,
    processes: list[deploy.Process],
    credentials: deploy.Credentials,
    fake: FakeProcess,
    watchers: int = 0,
    children: int = 0,
) -> dict:
    """One debate, its first words held until the probe here and ``watchers`` viewers in ``children``
    processes of their own (none: unwatched) have their snapshots."""
    tag = f"bench {time.time_ns() // 1_000_000}-0"
    fake.timings()  # from here on
    fake.hold()
    question_id = await asyncio.to_thread(deploy.ask, web, credentials, f"Replicas or sharding? ({tag})", PANEL)
    probe = Viewer(web.port)
    probing = asyncio.create_task(watch(probe, question_id, credentials.session))
    await snapshot_or_end(probe, probing)
    records: list[dict] = []
    folder = web.log.parent / f"crowd-{question_id}"  # the children's reports, in the deployment's folder
    async with Crowd([web], question_id, credentials.session, watchers, children, folder) as crowd:
        rss0, web0, connecting = rss_mib(web.pid), cpu_seconds(web.pid), time.time()
        if watchers:
            async with asyncio.timeout(600):
                await crowd.connect()
        rss1, connected = rss_mib(web.pid), time.time()
        cpu0 = {p.name: cpu_seconds(p.pid) for p in processes}
        fake.release()
        await asyncio.wait_for(probing, 900)
        if watchers:
            with contextlib.suppress(TimeoutError):  # one left open is counted, not waited for
                async with asyncio.timeout(300):
                    await crowd.closed()
        cpu = {p.name: cpu_seconds(p.pid) - cpu0[p.name] for p in processes}
        if watchers:
            async with asyncio.timeout(600):
                records = await crowd.report({"arrivals": True})
    written, _requests, ends = fake.timings()
    probe_words, _ = streamed_words(probe)
    firsts = [at - written[token] for token, at in probe_words.items() if token.endswith(".w0") and token in written]
    figures = {
        "probe first token p50 ms": statistics.median(firsts) * 1000,
        "probe first token p95 ms": percentile(firsts, 0.95) * 1000,
        "run length s": ends[tag] - min(written.values()),
    } | {f"{name} CPU s": seconds for name, seconds in cpu.items()}
    if not watchers:
        return figures
    lags, slowest, never, to_final = [], [], 0, []
    for record in records:
        mine = [at - written[token] for token, at in record["streamed"].items() if token in written]
        lags += mine
        slowest.append(percentile(mine, 0.95) if mine else float("inf"))
        never += len(written.keys() - record["streamed"].keys() - set(record["shown"]))
        if record["finished"]:
            to_final.append(record["last"] - ends[tag])
    failures = [record["failure"] for record in records if record["failure"]]
    return figures | {
        "viewers' lag p50 ms": statistics.median(lags) * 1000,
        "viewers' lag p95 ms": percentile(lags, 0.95) * 1000,
        "slowest viewer's lag p95 ms": max(slowest) * 1000,
        "tokens never at a viewer": never,
        "viewers without the final page": watchers - len(to_final),
        "last byte to final page p50 ms": statistics.median(to_final) * 1000 if to_final else float("nan"),
        "last byte to final page, slowest ms": max(to_final, default=float("nan")) * 1000,
        "connecting the viewers s": connected - connecting,
        "web CPU s connecting them": cpu0[web.name] - web0,
        "RSS MiB/idle viewer": (rss1 - rss0) / watchers,
        "sockets failed": f"{len(failures)} {failures[0] if failures else ''}".strip(),
    }


async def bench_watchers(mode: str, args: argparse.Namespace, fake: FakeProcess) -> dict:
    """Pairs of the same debate unwatched, then watched by --watchers viewers (module docstring)."""
    with (
        tempfile.TemporaryDirectory(prefix=f"teorema-bench-{mode}-") as workdir,
        deployment(mode, fake, Path(workdir), 1, serve=args.serve, tuning=args.tuning) as (web, processes, credentials),
    ):
        await measure_watched(web, processes, credentials, fake)  # warm-up
        pairs = []
        for _ in range(args.repeat):
            alone = await measure_watched(web, processes, credentials, fake)
            watched = await measure_watched(web, processes, credentials, fake, args.watchers, args.watcher_processes)
            pairs.append((alone, watched))
    figures: dict = {}
    for key in pairs[0][1]:
        values = [watched[key] for _, watched in pairs]
        if key in pairs[0][0]:  # measured both ways
            unwatched = statistics.median(a[key] for a, _ in pairs)
            ratio = statistics.median(w[key] / a[key] if a[key] else float("nan") for a, w in pairs)
            figures[key] = f"{unwatched:.3f} unwatched, {statistics.median(values):.3f} watched (x{ratio:.2f})"
        elif key == "tokens never at a viewer":  # counts, summed over the pairs
            figures[key] = sum(values)
        elif key == "viewers without the final page":
            figures[key] = f"{sum(values)}/{args.watchers * args.repeat}"
        elif key == "sockets failed":
            figures[key] = "; ".join(values)
        else:
            figures[key] = statistics.median(values)
    return figures


async def bench_mode(mode: str, args: argparse.Namespace, fake: FakeProcess) -> dict[int, dict]:
    """Figures per count of debates at once, measured in turn on the same processes."""
    most = max(args.debates)
    curve = {}
    with (
        tempfile.TemporaryDirectory(prefix=f"teorema-bench-{mode}-") as workdir,
        deployment(mode, fake, Path(workdir), most, args.workers, args.serve, args.tuning) as (
            web,
            processes,
            credentials,
        ),
    ):
        await measure_debates(web, processes, credentials, 1, fake)  # warm-up
        for count in args.debates:
            runs = [
                await measure_debates(
                    web, processes, credentials, count, fake, args.sample, args.stagger, args.dump, args.start_window
                )
                for _ in range(args.repeat)
            ]
            figures = {key: statistics.median(run.get(key, 0) for run in runs) for key in runs[0]}
            # Later batches reuse memory the first one freed: its growth is the cost of a running debate.
            figures["RSS MiB/debate"] = runs[0]["RSS MiB/debate"]
            figures["finished"] = f"{sum(run['finished'] for run in runs)}/{count * args.repeat}"
            figures["tokens never at a viewer"] = sum(run["tokens never at a viewer"] for run in runs)
            curve[count] = figures
    if args.viewers:  # fresh processes for the idle viewers, for the same reason
        with (
            tempfile.TemporaryDirectory(prefix=f"teorema-bench-{mode}-") as workdir,
            deployment(mode, fake, Path(workdir), most, serve=args.serve, tuning=args.tuning) as (
                web,
                processes,
                credentials,
            ),
        ):
            await measure_debates(web, processes, credentials, 1, fake)
            idle = await measure_idle(web, credentials, args.viewers, 3)
            curve[most]["RSS MiB/idle viewer"] = statistics.median(idle)
    return curve


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--debates", type=int, nargs="+", default=[50], help="debates at once (several: a curve)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--viewers", type=int, default=0, help="idle sockets opened per step (3 steps); 0: skip")
    parser.add_argument("--watchers", type=int, default=0, help="viewers of one debate, not a batch; 0: the batch")
    parser.add_argument("--watcher-processes", type=int, default=4, help="processes the --watchers viewers run in")
    parser.add_argument("--words", type=int, default=60, help="tokens per answer")
    parser.add_argument("--tps", type=float, default=20.0, help="tokens per second per voice")
    parser.add_argument("--first-token", type=float, default=0.5, help="seconds before the first token")
    parser.add_argument("--mode", nargs="+", choices=["single", "server"], default=["single", "server"])
    parser.add_argument("--workers", type=int, default=1, help="debate_worker processes in mode b")
    parser.add_argument("--sample", action="store_true", help="split Teorema's CPU by component (py-spy)")
    parser.add_argument("--stagger", type=float, default=0.0, help="seconds over which submissions spread; 0: at once")
    parser.add_argument("--start-window", type=float, default=2.0, help="seconds of 'machine busy at the start'")
    parser.add_argument("--dump", type=Path, help="write each token's write time and lag here (JSON)")
    parser.add_argument(
        "--twisted-writes",
        dest="serve",
        action="store_const",
        const="bench.serve_buffered",
        default="teorema.serve",
        help="web processes keep Twisted's buffered socket writes (no teorema.serve.write_at_once)",
    )
    parser.add_argument(
        "--fixed-window",
        dest="adapts",
        action="store_false",
        help="servers hold words the whole flush window whatever their load (TEOREMA_FLUSH_ADAPTS=0)",
    )
    parser.add_argument("--window", type=int, default=0, help="flush window ms (TEOREMA_FLUSH_INTERVAL_MS); 0: default")
    args = parser.parse_args()
    args.tuning = {"TEOREMA_FLUSH_ADAPTS": "1" if args.adapts else "0"}
    if args.window:
        args.tuning["TEOREMA_FLUSH_INTERVAL_MS"] = str(args.window)
    print(__doc__.split("Usage:")[0])
    counts = ", ".join(map(str, args.debates))
    if args.watchers:
        print(f"Settings: one debate, unwatched then watched by {args.watchers} viewers in {args.watcher_processes}")
        print(f"processes, {args.repeat} pairs, {len(VOICES)} voices (7 calls),")
    else:
        print(f"Settings: {counts} debates at once, {args.repeat} repetitions, {len(VOICES)} voices (7 calls),")
    print(f"{args.words} tokens per answer, {args.tps:g} tokens/s after {args.first_token:g} s; {os.cpu_count()} CPUs;")
    if not args.watchers:
        print(f"submitted {f'evenly over {args.stagger:g} s' if args.stagger else 'all at once'};", end=" ")
    window = f"{args.window} ms flush window" if args.window else "flush window"
    print(f"the {window} adapts to the load." if args.adapts else f"a fixed {window}.")
    pace = Pace(args.first_token, args.tps, args.words)
    synthesis = Pace(args.first_token, args.tps, args.words, SYNTHESIS, lead=True)
    paces = dict.fromkeys(VOICES, pace) | {MODERATOR: synthesis}
    with FakeProcess(paces | {"it-idle": Pace(3600, 1, 1)}, suffix=SUFFIX, tag=TAG) as fake:
        for mode in args.mode:
            if mode == "server" and (reason := deploy.services_unavailable()):
                print(f"\n(b) server: skipped, {reason}")
                continue
            before = load()
            if args.watchers:  # one debate: its figures as they are
                curve = {1: asyncio.run(bench_watchers(mode, args, fake))}
            else:
                curve = asyncio.run(bench_mode(mode, args, fake))
            print(f"\n({'a' if mode == 'single' else 'b'}) {mode} (load average {before} before, {load()} after):")
            for count, figures in curve.items():
                print(f"\n {count} debate{'s' if count > 1 else ''} at once{', watched' if args.watchers else ''}:")
                for key, value in figures.items():
                    print(f"  {key:40} {value:.3f}" if isinstance(value, float) else f"  {key:40} {value}")


if __name__ == "__main__":
    main()
