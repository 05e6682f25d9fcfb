"""Admission bench: the CPU a question costs before its first provider call, and a burst of them.

In-process (the default): one Python process holds Teorema as `make run` starts it (SQLite, the
in-memory channel layer, runs on the process's own loop) and calls its real ASGI application
(teorema.asgi.application) directly, with no server and no client library in between: a POST of
/api/questions with a bearer token, as a script asks. The fake provider (tests/fakes/provider_server.py)
runs in a process of its own (bench/fakeproc.py), over loopback, so its CPU is not Teorema's; its
voices answer the request's headers at once and their first word an hour later, so every run stops
at its first round's requests and the next question's admission runs alone. The questions are posted
one after another; each one's admission is done when the provider client's ``send`` has returned
for each of the panel's voices (their requests are on the wire and answered with headers):

- CPU per question: utime + stime of the whole process (time.process_time: every thread) from the
  POST to the last of those sends, median over the questions;
- the same over the whole run (os.times, waits and background included, not the CPU of cancelling
  each run once its requests are out, which keeps the provider client's pool from filling) / questions;
- per phase, the CPU of the thread that ran it (time.thread_time, wrapped around the function):
  the bearer token (tokens.bearer_user), the form (AskForm.full_clean: its fields, panel, voices and
  roster reads), the hour's limit (ratelimit.take), the insert (AskForm.save), the task
  (runs.tasks.submit), the run's claim and spec (runs.execute.start), then the first requests: the
  process's CPU from the end of the claim to the last send (the engine's start, its first rows and
  broadcasts, the three requests); "request" is the rest of the total (the ASGI handler, middleware,
  the view, JSON in and out, the hops between threads).
The floors, measured in the same process after the questions: the CPU of a request Django answers at
once (GET /healthz through the same application) and of one provider request as the panel's client
makes it (httpx, a new connection, to the answer's headers); an admission holds one of the first
and three of the second.
The figures are medians over --runs runs, each in a fresh process after --warm questions not
counted. With --against DIR the runs alternate between DIR (another checkout, such as a worktree of
the commit before a change: ``git worktree add /tmp/before HEAD~1``) and this one, A first: the
interleaved A/B each change in docs/benchmarks.md is measured with.

--burst N: N questions posted at once to a served deployment, each on a thread of its own, POST to
the run's first provider request (p50, p95), next to the floor: N GETs of /healthz sent at once
before the batch (bench_scale.py's measure_debates and http_floor, reused as they are: the single
process and, when PostgreSQL and Redis answer on loopback, web + worker); medians of --runs batches
after a warm-up one. The goal of issue 40 is a p95 at most 3× the floor's.

Usage: python bench/bench_admission.py [--questions 30] [--runs 3] [--warm 5] [--against DIR] [--profile DIR]
       python bench/bench_admission.py --burst 50 [--runs 3] [--mode single server] [--words 20]
"""

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PHASES = ("request", "token", "form", "limit", "insert", "task", "claim/spec", "first requests")
# The functions each phase is: (module, attribute, phase); an attribute a checkout lacks is skipped.
WRAPPED = (
    ("debates.integrations.endpoint", "bearer_user", "token"),
    ("debates.forms", "AskForm.full_clean", "form"),
    ("debates.lib.ratelimit", "take", "limit"),
    ("debates.forms", "AskForm.save", "insert"),
    ("debates.runs.tasks", "submit", "task"),
    ("debates.runs.execute", "start", "claim/spec"),
)
HOUR = 3600.0  # the voices' first word: never, within a run of the bench


def load() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


# --- one run, in a child process -----------------------------------------------------------------


def child(code: Path, port: int, questions: int, warm: int) -> dict:
    """Measure ``questions`` admissions in this process, on the checkout at ``code``."""
    sys.path.insert(0, str(code))
    workdir = Path(tempfile.mkdtemp(prefix="teorema-admission-"))
    from tests.integration.cluster import API_KEY_ENV

    os.environ.update(
        {
            "DJANGO_SETTINGS_MODULE": "teorema.settings",
            "TEOREMA_DATA_DIR": str(workdir),
            "TEOREMA_RUN_IN_PROCESS": "1",
            "TEOREMA_QUESTIONS_PER_HOUR": "1000000",
            "ALLOWED_HOSTS": "127.0.0.1,testserver",
            "LOG_LEVEL": "WARNING",
            API_KEY_ENV: "sk-fake-bench",
        }
    )
    for name in ("DATABASE_URL", "REDIS_URL"):
        os.environ.pop(name, None)
    import django

    django.setup()
    from django.core.management import call_command

    from tests.integration.debate import PANEL, VOICES, roster_toml

    class Fake:  # what roster_toml asks of a server
        def base_url(self, wire: str) -> str:
            return f"http://127.0.0.1:{port}/v1"

    call_command("migrate", verbosity=0)
    (workdir / "roster.toml").write_text(roster_toml(Fake(), dict.fromkeys(VOICES, 0.0)))
    call_command("roster", "import", str(workdir / "roster.toml"), verbosity=0)
    token = make_token()

    async def measured() -> dict:
        return await admissions(token, PANEL, len(VOICES), questions, warm) | await floors(port, next(iter(VOICES)))

    return asyncio.run(measured())


def make_token() -> str:
    from django.contrib.auth import get_user_model

    from debates.models import ApiToken
    from debates.tokens import assign_secret

    user = get_user_model().objects.create_user("bench")
    token = ApiToken(user=user, name="bench")
    raw = assign_secret(token)
    token.save()
    return raw


class Meter:
    """Each phase's CPU for the question being admitted, and the provider sends so far."""

    def __init__(self) -> None:
        self.spent: dict[str, float] = defaultdict(float)
        self.started_at = 0.0  # process CPU when the claim and spec were done
        self.sends = 0
        self.sent_at: list[float] = []  # process CPU when each send returned
        self.enough: asyncio.Event | None = None
        self.target = 0

    def wrap(self, module_name: str, attribute: str, phase: str) -> None:
        import importlib

        owner: object = importlib.import_module(module_name)
        *path, name = attribute.split(".")
        for part in path:
            owner = getattr(owner, part, None)
        if owner is None or not hasattr(owner, name):
            return
        original = getattr(owner, name)
        meter = self

        def timed(*args, **kwargs):
            before = time.thread_time()
            try:
                return original(*args, **kwargs)
            finally:
                meter.spent[phase] += time.thread_time() - before
                if phase == "claim/spec":
                    meter.started_at = time.process_time()

        setattr(owner, name, timed)

    def watch_sends(self, loop: asyncio.AbstractEventLoop) -> None:
        import httpx

        original = httpx.AsyncClient.send
        meter = self

        async def send(client, request, **kwargs):
            response = await original(client, request, **kwargs)
            meter.sends += 1
            meter.sent_at.append(time.process_time())
            if meter.enough is not None and meter.sends >= meter.target:
                meter.enough.set()
            return response

        httpx.AsyncClient.send = send  # type: ignore[method-assign]

    def expect(self, more: int) -> asyncio.Event:
        self.spent = defaultdict(float)
        self.started_at = 0.0
        self.target = self.sends + more
        self.enough = asyncio.Event()
        return self.enough


async def post(app, path: str, body: bytes, token: str) -> int:
    """One POST through the ASGI application, as a server would hand it over; the status."""
    return await request(app, "POST", path, body, token)


async def request(app, method: str, path: str, body: bytes, token: str) -> int:
    """One request through the ASGI application; the status."""
    done = asyncio.Event()
    sent = False
    status = 0

    async def receive() -> dict:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        await done.wait()
        return {"type": "http.disconnect"}

    async def send(message: dict) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = message["status"]
        elif message["type"] == "http.response.body" and not message.get("more_body"):
            done.set()

    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [
            (b"host", b"127.0.0.1"),
            (b"content-type", b"application/json"),
            (b"authorization", f"Bearer {token}".encode()),
            (b"content-length", str(len(body)).encode()),
        ],
        "client": ("127.0.0.1", 40000),
        "server": ("127.0.0.1", 8000),
    }
    await app(scope, receive, send)
    return status


async def stop_runs() -> None:
    """Cancel the runs started so far, as a server shutting down would (their leases freed)."""
    from debates.runs import taskbackend

    running = list(taskbackend._running)
    for task in running:
        task.cancel()
    await asyncio.gather(*running, return_exceptions=True)


async def admissions(token: str, panel: str, voices: int, questions: int, warm: int) -> dict:
    from teorema.asgi import application

    meter = Meter()
    for module_name, attribute, phase in WRAPPED:
        meter.wrap(module_name, attribute, phase)
    meter.watch_sends(asyncio.get_running_loop())
    rows: list[dict[str, float]] = []
    times0, aside = None, 0.0
    for number in range(warm + questions):
        if number == warm:
            times0, aside = os.times(), 0.0
        body = json.dumps({"text": f"Replicas or sharding for question {number}?", "panel": panel}).encode()
        enough = meter.expect(voices)
        before = time.process_time()
        status = await post(application, "/api/questions", body, token)
        if status != 201:
            raise RuntimeError(f"POST /api/questions answered {status}")
        await asyncio.wait_for(enough.wait(), 30)
        last = meter.sent_at[meter.target - 1]
        stopping = time.process_time()
        await stop_runs()  # its streams would fill the client's pool of 200 connections
        aside += time.process_time() - stopping
        row = dict(meter.spent)
        row["first requests"] = last - meter.started_at if meter.started_at else float("nan")
        row["total"] = last - before
        row["request"] = row["total"] - sum(row.get(p, 0.0) for p in PHASES if p != "request")
        if number >= warm:
            rows.append(row)
    assert times0 is not None
    times1 = os.times()
    whole = (times1.user + times1.system - times0.user - times0.system - aside) / questions
    figures = {key: statistics.median(r.get(key, 0.0) for r in rows) * 1000 for key in (*PHASES, "total")}
    figures["whole process / question"] = whole * 1000
    return figures


async def floors(port: int, model: str, times: int = 200) -> dict[str, float]:
    """What no admission can cost less than, in this process: a request Django answers at once
    (GET /healthz through the same application, median CPU), and one provider request as the
    panel's client library makes it (httpx, a new connection, to the answer's headers)."""
    import httpx

    from teorema.asgi import application

    async def cpu(step) -> float:
        spent = []
        for _ in range(times):
            before = time.process_time()
            await step()
            spent.append(time.process_time() - before)
        return statistics.median(spent[times // 10 :]) * 1000

    async def healthz() -> None:
        await request(application, "GET", "/healthz", b"", "")

    url = f"http://127.0.0.1:{port}/v1/chat/completions"
    body = {"model": model, "stream": True, "messages": [{"role": "user", "content": "Replicas or sharding?"}]}
    async with httpx.AsyncClient(limits=httpx.Limits(max_keepalive_connections=0)) as client:

        async def provider() -> None:
            sent = client.build_request("POST", url, json=body, headers={"authorization": "Bearer sk-fake-bench"})
            response = await client.send(sent, stream=True)
            await response.aclose()

        return {"floor: GET /healthz": await cpu(healthz), "floor: a provider request": await cpu(provider)}


# --- the parent: runs, interleaved -----------------------------------------------------------------


def run_child(code: Path, port: int, args: argparse.Namespace) -> dict:
    command = [sys.executable, str(Path(__file__).resolve()), "--child", str(code), "--port", str(port)]
    command += ["--questions", str(args.questions), "--warm", str(args.warm)]
    if args.profile:  # py-spy's sampled stacks of the run, collapsed, one file a run
        args.profile.mkdir(parents=True, exist_ok=True)
        path = args.profile / f"{code.name}-{len(list(args.profile.iterdir()))}.txt"
        command = ["py-spy", "record", "-r", "500", "-f", "raw", "-o", str(path), "--", *command]
    out = subprocess.run(command, cwd=code, capture_output=True, text=True, timeout=600)
    line = next((x for x in out.stdout.splitlines() if x.startswith("FIGURES ")), None)
    if line is None:
        raise RuntimeError(f"the run on {code} failed:\n{out.stdout[-2000:]}\n{out.stderr[-4000:]}")
    return json.loads(line.removeprefix("FIGURES "))


def in_process(args: argparse.Namespace) -> None:
    from bench.fakeproc import FakeProcess, Pace
    from tests.integration.debate import MODERATOR, VOICES

    sides = [("A", args.against.resolve()), ("B", ROOT)] if args.against else [("", ROOT)]
    print(__doc__.split("--burst N")[0])
    print(f"Settings: {args.questions} questions a run after {args.warm} not counted, {args.runs} runs a side,")
    print(f"{len(VOICES)} voices (their first round: {len(VOICES)} requests); {os.cpu_count()} CPUs.")
    for name, code in sides:
        print(f"  {name or 'this'}: {code} ({git_head(code)})")
    paces = dict.fromkeys([*VOICES, MODERATOR], Pace(first_token=HOUR))
    results: dict[str, list[dict]] = defaultdict(list)
    with FakeProcess(paces) as fake:
        for run in range(args.runs):
            for name, code in sides:
                before = load()
                figures = run_child(code, fake.port, args)
                figures["load before"] = before
                results[name].append(figures)
                label = f"{name} " if name else ""
                print(f"  run {run + 1} {label}(load {before}): {figures['total']:.2f} ms a question")
    keys = [*PHASES, "total", "whole process / question", "floor: GET /healthz", "floor: a provider request"]
    print("\nms of CPU per question, medians of the runs (each the median over its questions):")
    header = "".join(f"{name or 'this':>12}" for name, _ in sides)
    print(f"  {'':28}{header}{'   B/A' if args.against else ''}")
    for key in keys:
        values = [statistics.median(r[key] for r in results[name]) for name, _ in sides]
        ratio = f"  {values[1] / values[0]:.2f}" if args.against and values[0] else ""
        print(f"  {key:28}" + "".join(f"{v:12.2f}" for v in values) + ratio)
    print(f"\nload average after: {load()}")


def git_head(code: Path) -> str:
    found = subprocess.run(["git", "-C", str(code), "log", "-1", "--format=%h %s"], capture_output=True, text=True)
    return found.stdout.strip()[:70]


# --- a burst: bench_scale's batch, its admission figures ----------------------------------------------


def burst(args: argparse.Namespace) -> None:
    sys.path.insert(0, str(ROOT))
    from bench import bench_scale as scale
    from bench.fakeproc import FakeProcess, Pace
    from tests.integration import cluster as deploy

    print(__doc__.split("--burst N: ")[1].split("Usage:")[0])
    print(f"Settings: {args.burst} questions at once, {args.runs} batches after a warm-up, {len(scale.VOICES)}")
    print(f"voices, {args.words} tokens an answer at {args.tps:g}/s; {os.cpu_count()} CPUs.")
    pace = Pace(0.1, args.tps, args.words)
    synthesis = Pace(0.1, args.tps, args.words, scale.SYNTHESIS, lead=True)
    paces = dict.fromkeys(scale.VOICES, pace) | {scale.MODERATOR: synthesis}
    keys = ("POST to first call p50 ms", "POST to first call p95 ms")
    floor = ("/healthz at once p50 ms (the floor)", "/healthz at once p95 ms (the floor)")
    with FakeProcess(paces, suffix=scale.SUFFIX, tag=scale.TAG) as fake:
        for mode in args.mode:
            if mode == "server" and (reason := deploy.services_unavailable()):
                print(f"\n{mode}: skipped, {reason}")
                continue
            before = load()
            runs = asyncio.run(batches(scale, mode, fake, args))
            print(f"\n{mode} (load {before} before, {load()} after):")
            for key in (*keys, *floor):
                values = [run[key] for run in runs]
                print(f"  {key:40} {statistics.median(values):8.1f}   ({', '.join(f'{v:.0f}' for v in values)})")
            ratios = [run[keys[1]] / run[floor[1]] for run in runs]
            print(f"  {'p95 / the floor p95':40} {statistics.median(ratios):8.2f}   (goal: at most 3)")


async def batches(scale, mode: str, fake, args: argparse.Namespace) -> list[dict]:
    with (
        tempfile.TemporaryDirectory(prefix=f"teorema-admission-{mode}-") as workdir,
        scale.deployment(mode, fake, Path(workdir), args.burst, 1) as (web, processes, credentials),
    ):
        await scale.measure_debates(web, processes, credentials, 1, fake)  # warm-up
        await scale.measure_debates(web, processes, credentials, args.burst, fake)  # a warm-up batch
        return [await scale.measure_debates(web, processes, credentials, args.burst, fake) for _ in range(args.runs)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--questions", type=int, default=30, help="questions measured a run")
    parser.add_argument("--runs", type=int, default=3, help="runs (processes) a side; batches with --burst")
    parser.add_argument("--warm", type=int, default=5, help="questions asked first, not counted")
    parser.add_argument("--against", type=Path, help="another checkout, measured in turn with this one (A/B)")
    parser.add_argument("--burst", type=int, default=0, help="questions posted at once (a served deployment)")
    parser.add_argument("--mode", nargs="+", choices=["single", "server"], default=["single", "server"])
    parser.add_argument("--words", type=int, default=20, help="--burst: tokens an answer")
    parser.add_argument("--tps", type=float, default=50.0, help="--burst: tokens a second")
    parser.add_argument("--profile", type=Path, help="a folder: py-spy's stacks of each run (collapsed)")
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        figures = child(args.child, args.port, args.questions, args.warm)
        print("FIGURES " + json.dumps(figures), flush=True)
        os._exit(0)  # the runs still wait for their first words: no shutdown to wait for
    sys.path.insert(0, str(ROOT))
    if args.burst:
        burst(args)
    else:
        in_process(args)


if __name__ == "__main__":
    main()
