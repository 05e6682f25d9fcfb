"""The live stream under load: every word at every viewer once and in order, whatever the crowd.

Two shapes, in both setups. Many debates: 50 or 100 questions submitted at once through the JSON
API to a 3-voice teorema panel that always debates (7 calls each: 3 blind answers, 3 debate
turns, the moderator), each watched over a websocket from the moment its id is known. Many
viewers: one such debate, a link shared with a whole team, watched by 1,000 sockets in processes
of their own (``crowd``), each with its snapshot before the debate's first word (the fake holds
the words until then), and each checked there, by the same checker.

- The server setup (marked ``services``): 2 Daphne processes, 2 debate workers, PostgreSQL and
  Redis. Every debate is watched on both web processes; the worker running it is a third
  process, so every word crosses the Redis channel layer.
- The single process ``make run`` starts: one Daphne runs the debates on its own loop, with
  the in-memory channel layer and cache and SQLite; one viewer per debate.

The crowd watches on both web processes in the server setup, half on each, so every word
crosses Redis to both.

Every word a voice streams is unique ("<model>.<request>.w<i>"), so a page can be compared with
the stored contributions word by word, by the one checker of a viewer (``checks.check_viewer``):
while a card streams it never shows anything but a beginning of the stored text (no word doubled,
skipped or out of place, even for a moment), and when its finished card arrives the card holds
exactly the stored text. A viewer that connects after a contribution finished sees its finished
card instead: the stored text, rendered. The stored text is, in turn, exactly what the provider
sent. Nothing here is about time: the bounds only stop a hung run.
"""

import asyncio
import os
import re
import secrets
import sqlite3
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path

import pytest

from tests.fakes.provider_server import FakeProviderServer, FakeRequest, Script
from tests.integration.checks import check_viewer, difference, keep_messages, still_open
from tests.integration.cluster import API_KEY_ENV, Cluster, Credentials, Process, ask, create_user
from tests.integration.crowd import Crowd
from tests.integration.debate import (
    MODERATOR,
    PANEL,
    VOICES,
    Deployment,
    Store,
    StoredContribution,
    step_of,
    write_roster,
)
from tests.integration.viewer import Viewer, watch

pytestmark = pytest.mark.timeout(600)
WORDS = 24  # per answer: short, so 350 calls stream in well under a minute
PACE = 20.0  # words per second per stream
FIRST_WORD_AFTER = 1.0  # seconds: most viewers are connected before the first word
CALLS = {"answer": len(VOICES), "debate": len(VOICES), "synthesis": 1}
WAIT = 300  # seconds: a bound for a hung run on a shared 2-core machine, never what is tested
SHOWN = 40  # problems listed in a failure, before the processes' logs
AFTER_THE_END = 60  # seconds a viewer gets, once every run ended, to receive the end of its run
UNFINISHED = {"queued", "running"}
CROWD = 1000  # viewers of the one debate
CROWD_PROCESSES = 4
FIRST_WORD = re.compile(r"(?P<model>[\w-]+)\.(?P<number>\d+)\.w0\b")


# --- what the voices say -------------------------------------------------------------------
def words(model: str, number: int) -> list[str]:
    return [f"{model}.{number}.w{i}" for i in range(WORDS)]


def unique_answer(request: FakeRequest) -> str:
    """Words no other call sends; the moderator's in the sections a synthesis has."""
    text = " ".join(words(request.model, request.number))
    if step_of(request) == "synthesis":
        return f"## Consensus\n{text}\n\n## Verdict\n{request.model}.{request.number}.verdict"
    return f"{text}\n\nANSWER: Add read replicas"  # the same answer line: no judge needed, 7 calls a debate


def script_unique_words(server: FakeProviderServer, hold: Callable[[], bool] | None = None) -> None:
    """``hold``: while it returns True, no call's first word goes."""
    for model in [*VOICES, MODERATOR]:
        server.script(
            model, Script(answer=unique_answer, first_token_delay=FIRST_WORD_AFTER, tokens_per_second=PACE, hold=hold)
        )


def sent_by_provider(server: FakeProviderServer, stored: StoredContribution) -> str | None:
    """The answer the fake provider streamed for this contribution (its first word names the request)."""
    first = FIRST_WORD.search(stored.text)
    request = first and next((r for r in server.requests_for(first["model"]) if r.number == int(first["number"])), None)
    return unique_answer(request) if request else None


# --- one run of the scenario --------------------------------------------------------------
@dataclass
class Watch:
    """One viewer of one debate."""

    debate: int  # 1, 2, …, in submission order
    question_id: int
    web: Process
    viewer: Viewer
    task: asyncio.Task
    problems: list[str] = field(default_factory=list)

    def __str__(self) -> str:
        return f"debate {self.debate} (question {self.question_id}), viewer on {self.web.name} (port {self.web.port})"


async def submit_and_watch(webs: list[Process], credentials: Credentials, debates: int) -> list[Watch]:
    """``debates`` questions at once, alternately through each web process; each watched on every
    web process as soon as its id is known."""
    loop = asyncio.get_running_loop()
    token = secrets.token_hex(4)

    async def one(debate: int, pool: ThreadPoolExecutor) -> list[Watch]:
        text = f"Read replicas or sharding for our reporting load? (load {token} #{debate})"
        web = webs[debate % len(webs)]
        submit = lambda: ask(web, credentials, text, PANEL, debate="always", force_panel=True)  # noqa: E731
        question_id = await loop.run_in_executor(pool, submit)
        watches = []
        for watcher in webs:
            viewer = Viewer(watcher.port)
            task = asyncio.create_task(watch(viewer, question_id, credentials.session))
            watches.append(Watch(debate, question_id, watcher, viewer, task))
        return watches

    with ThreadPoolExecutor(debates) as pool:
        per_debate = await asyncio.gather(*(one(debate, pool) for debate in range(1, debates + 1)))
    return [w for watches in per_debate for w in watches]


async def until_every_viewer_closed(watches: list[Watch], store: Store) -> None:
    """The consumer closes each socket once its run is over. A socket still open AFTER_THE_END
    after every run ended missed the run's last broadcast (or WAIT passed: a hung run)."""
    loop = asyncio.get_running_loop()
    deadline, ended = loop.time() + WAIT, None
    running = {w.question_id for w in watches}
    while not all(w.task.done() for w in watches) and loop.time() < min(deadline, ended or deadline):
        await asyncio.sleep(0.5)
        running = {q for q in running if store.question(q)["status"] in UNFINISHED}
        if not running and ended is None:
            ended = loop.time() + AFTER_THE_END
    for w in watches:
        if not w.task.done():
            w.task.cancel()
            why = "its run is over" if w.question_id not in running else f"waited {WAIT}s"
            w.problems.append(still_open(str(w), w.viewer, why))
        elif not w.task.cancelled() and (error := w.task.exception()):
            w.problems.append(f"{w}: the socket failed: {error!r}")
    await asyncio.gather(*(w.task for w in watches), return_exceptions=True)


def check_debate(
    store: Store, server: FakeProviderServer, question_id: int
) -> tuple[list[StoredContribution], list[str]]:
    """The stored contributions of a completed debate, and what is wrong with them."""
    question, calls, problems = store.question(question_id), store.calls(question_id), []
    if (question["status"], question["error"]) != ("done", ""):
        problems.append(f"question {question_id}: {question['status']} {question['error']!r}, not done")
    if Counter(v.kind for v in calls) != CALLS or {v.status for v in calls} != {"done"}:
        problems.append(f"question {question_id}: stored {[(v.round, v.seat, v.kind, v.status) for v in calls]}")
    for stored in calls:
        sent = sent_by_provider(server, stored)
        if sent != stored.text:
            problems.append(
                f"question {question_id}, round {stored.round} seat {stored.seat}: the stored text is not "
                f"what the provider sent; {difference(sent or '', stored.text)}"
            )
    return calls, problems


def keep_messages_of(watches: list[Watch], folder: Path) -> str:
    """Every message the viewers with a problem received, numbered as the problems number them."""
    for w in watches:
        keep_messages(w.viewer, folder / f"viewer-q{w.question_id}-{w.web.name}.txt")
    return f"The messages of those viewers are in {folder}/viewer-q<question>-<web>.txt" if watches else ""


async def run_scenario(
    webs: list[Process],
    credentials: Credentials,
    store: Store,
    server: FakeProviderServer,
    processes: Cluster,
    debates: int,
) -> str:
    """Submit, watch, check everything; a failure lists the problems, then the processes' logs."""
    started = time.monotonic()
    watches = await submit_and_watch(webs, credentials, debates)
    submitted = time.monotonic()
    await until_every_viewer_closed(watches, store)
    streamed = time.monotonic()

    problems, how = [], Counter()
    calls = {}
    for question_id in dict.fromkeys(w.question_id for w in watches):
        calls[question_id], wrong = check_debate(store, server, question_id)
        problems += wrong
    for w in watches:
        found, seen = check_viewer(w.viewer, calls[w.question_id], str(w), w.web.log)
        w.problems += found
        how += seen
        problems += w.problems
    problems += errors_logged(processes)
    if problems:
        fail_with(problems, processes, keep_messages_of([w for w in watches if w.problems], processes.workdir))
    messages = sum(len(w.viewer.messages) for w in watches)
    return (
        f"{debates} debates, {len(watches)} viewers: submitted in {submitted - started:.1f}s, all sockets closed "
        f"{streamed - started:.1f}s after the first submission; {messages} messages; contributions seen "
        + ", ".join(f"{reason} {count}" for reason, count in sorted(how.items()))
    )


def errors_logged(processes: Cluster) -> list[str]:
    problems = []
    for process in processes.processes:
        logged = [line for line in process.output().splitlines() if " ERROR " in line or "lease lost" in line]
        if logged:
            problems.append(f"{process.name} logged {len(logged)} errors, the first: {logged[0]}")
    return problems


def fail_with(problems: list[str], processes: Cluster, kept: str) -> None:
    """Fail listing the problems, where the messages of the viewers with one are (``kept``), the logs."""
    listed = "\n".join(problems[:SHOWN])
    more = f"\n… and {len(problems) - SHOWN} more" if len(problems) > SHOWN else ""
    pytest.fail(f"{len(problems)} problems:\n{listed}{more}\n{kept}\n{processes.logs()}", pytrace=False)


async def run_crowd_scenario(
    webs: list[Process],
    credentials: Credentials,
    store: Store,
    server: FakeProviderServer,
    processes: Cluster,
    let_go: threading.Event,
) -> str:
    """One debate watched by CROWD viewers, its first words held (until ``let_go`` is set) until
    each has its snapshot; then the debate and every viewer checked as in ``run_scenario``."""
    text = f"Read replicas or sharding for our reporting load? (crowd {secrets.token_hex(4)})"
    submit = lambda: ask(webs[0], credentials, text, PANEL, debate="always", force_panel=True)  # noqa: E731
    question_id = await asyncio.to_thread(submit)
    folder = processes.workdir / "crowd"
    async with Crowd(webs, question_id, credentials.session, CROWD, CROWD_PROCESSES, folder) as crowd:
        started = time.monotonic()
        async with asyncio.timeout(WAIT):  # the held calls give up sooner: 60 s, the roster's stall_timeout
            await crowd.connect()
        connected = time.monotonic()
        let_go.set()
        why = await until_the_crowd_closed(crowd, store, question_id)
        streamed = time.monotonic()
        calls, problems = check_debate(store, server, question_id)
        async with asyncio.timeout(WAIT):
            viewers = await crowd.report({"check": [asdict(call) for call in calls], "why": why})
    how = Counter()
    for viewer in viewers:
        problems += viewer["problems"]
        how += Counter(viewer["how"])
    problems += errors_logged(processes)
    if problems:
        fail_with(problems, processes, f"The messages of the viewers with a problem are in {folder}/viewer-<n>.txt")
    messages = sum(viewer["messages"] for viewer in viewers)
    return (
        f"1 debate, {len(viewers)} viewers in {CROWD_PROCESSES} processes: every snapshot sent "
        f"{connected - started:.1f}s after the first socket opened, all sockets closed {streamed - connected:.1f}s "
        f"after the words went; {messages} messages; contributions seen "
        + ", ".join(f"{reason} {count}" for reason, count in sorted(how.items()))
    )


async def until_the_crowd_closed(crowd: Crowd, store: Store, question_id: int) -> str:
    """Wait for the server to close every socket, as ``until_every_viewer_closed`` does; "" once
    it did, else why it should have (what the crowd reports of a socket still open)."""
    loop = asyncio.get_running_loop()
    deadline, ended = loop.time() + WAIT, None
    closing = asyncio.ensure_future(crowd.closed())
    while not closing.done() and loop.time() < min(deadline, ended or deadline):
        await asyncio.wait([closing], timeout=0.5)
        if ended is None and store.question(question_id)["status"] not in UNFINISHED:
            ended = loop.time() + AFTER_THE_END
    if closing.done() and closing.result():
        return ""
    closing.cancel()
    return "its run is over" if ended is not None else f"waited {WAIT}s"


# --- the server setup --------------------------------------------------------------------
@pytest.mark.services
@pytest.mark.parametrize("debates", [50, 100])
async def test_debates_at_once_reach_every_viewer_on_both_web_processes_whole_and_in_order(
    deployment: Deployment, cluster: Cluster, debates: int
) -> None:
    script_unique_words(deployment.server)
    # The default lease (60 s), not the deployment's 3 s made for fail-over tests: on a loaded
    # 2-core machine a 3 s lease can lapse under load, and a take-over is another test's subject.
    lease = {"TEOREMA_LEASE_SECONDS": "60"}
    webs = [cluster.web(name, TEOREMA_QUESTIONS_PER_HOUR="1000", **lease) for name in ("web1", "web2")]
    for name in ("worker1", "worker2"):
        cluster.worker(name, "--concurrency", str(debates // 2), **lease)
    store = Store(deployment.database_url)
    try:
        report = await run_scenario(webs, deployment.credentials, store, deployment.server, cluster, debates)
    finally:
        store.close()
    print(f"\nserver setup: {report}")


@pytest.mark.services
async def test_a_thousand_viewers_on_both_web_processes_each_see_every_word_of_the_debate_once_and_in_order(
    deployment: Deployment, cluster: Cluster
) -> None:
    let_go = threading.Event()
    script_unique_words(deployment.server, hold=lambda: not let_go.is_set())
    lease = {"TEOREMA_LEASE_SECONDS": "60"}  # as above
    webs = [cluster.web(name, TEOREMA_QUESTIONS_PER_HOUR="1000", **lease) for name in ("web1", "web2")]
    cluster.worker("worker1", **lease)
    store = Store(deployment.database_url)
    try:
        report = await run_crowd_scenario(webs, deployment.credentials, store, deployment.server, cluster, let_go)
    finally:
        let_go.set()
        store.close()
    print(f"\nserver setup: {report}")


# --- the single process ------------------------------------------------------------------
class SqliteStore(Store):
    """The same reads as Store, from the single process's SQLite file."""

    def __init__(self, path: Path) -> None:
        self.connection = _Sqlite(path)


class _Sqlite:
    def __init__(self, path: Path) -> None:
        self.db = sqlite3.connect(path)

    def execute(self, sql: str, params: list) -> sqlite3.Cursor:
        # PostgreSQL's placeholders, and a column named like an SQLite keyword
        return self.db.execute(sql.replace("%s", "?").replace("r.index", 'r."index"'), params)

    def close(self) -> None:
        self.db.close()


@pytest.fixture
def single_process(tmp_path: Path) -> Iterator[tuple[FakeProviderServer, Cluster, Credentials, SqliteStore]]:
    """A fake provider, and the app as `make run` starts it: its own SQLite and data dir, which
    the store reads."""
    data = tmp_path / "data"
    ours = ("TEOREMA_", "DJANGO_", "DATABASE_URL", "REDIS_URL")
    env = {name: value for name, value in os.environ.items() if not name.startswith(ours)}
    env |= {
        "TEOREMA_DATA_DIR": str(data),
        "ALLOWED_HOSTS": "127.0.0.1",
        API_KEY_ENV: "sk-fake-integration",
        "TEOREMA_QUESTIONS_PER_HOUR": "1000",
        "PYTHONUNBUFFERED": "1",
    }
    with FakeProviderServer() as server:
        script_unique_words(server)
        processes = Cluster(tmp_path, env)
        try:
            processes.manage("migrate", "--no-input")
            processes.manage("roster", "import", str(write_roster(tmp_path / "roster.toml", server, VOICES)))
            store = SqliteStore(data / "teorema.sqlite3")
            try:
                yield server, processes, create_user(processes, "watcher"), store
            finally:
                store.close()
        finally:
            processes.stop()


@pytest.mark.parametrize("debates", [50, 100])
async def test_debates_at_once_reach_every_viewer_of_the_single_process_whole_and_in_order(
    single_process: tuple[FakeProviderServer, Cluster, Credentials, SqliteStore], debates: int
) -> None:
    server, processes, credentials, store = single_process
    report = await run_scenario([processes.web("web")], credentials, store, server, processes, debates)
    print(f"\nsingle process: {report}")


async def test_a_thousand_viewers_of_the_single_process_each_see_every_word_of_the_debate_once_and_in_order(
    single_process: tuple[FakeProviderServer, Cluster, Credentials, SqliteStore],
) -> None:
    server, processes, credentials, store = single_process
    let_go = threading.Event()
    script_unique_words(server, hold=lambda: not let_go.is_set())
    web = processes.web("web")
    try:
        report = await run_crowd_scenario([web], credentials, store, server, processes, let_go)
    finally:
        let_go.set()
    print(f"\nsingle process: {report}")
