"""The server setup as real processes on loopback: Daphne web processes and debate workers.

Every process gets the environment the Procfile's processes would get on a team server
(DATABASE_URL, REDIS_URL, TEOREMA_RUN_IN_PROCESS=0, one shared TEOREMA_DATA_DIR for the secret
and Fernet keys) and writes its output to a log file, which a failing test shows. The
integration tests and bench/bench_scale.py both start their processes through this module.
"""

import contextlib
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import NoReturn

import psycopg
import pytest
import redis

ROOT = Path(__file__).resolve().parents[2]
PG_SERVER = "host=127.0.0.1 port=5432 user=root dbname=postgres connect_timeout=3"
REDIS = {"host": "127.0.0.1", "port": 6379, "socket_connect_timeout": 3}
API_KEY_ENV = "TEOREMA_FAKE_API_KEY"
LOOPBACK = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # never through a proxy


def services_unavailable() -> str:
    """Why PostgreSQL or Redis cannot be used on loopback, or "" when both answer."""
    try:
        psycopg.connect(PG_SERVER).close()
    except psycopg.OperationalError as exc:
        return f"PostgreSQL unreachable on 127.0.0.1:5432: {exc}"
    try:
        redis.Redis(**REDIS).ping()
    except redis.RedisError as exc:
        return f"Redis unreachable on 127.0.0.1:6379: {exc}"
    return ""


def require_services() -> None:
    """Skip the calling test when PostgreSQL or Redis is unreachable (see ``skip_or_fail``)."""
    if reason := services_unavailable():
        skip_or_fail(reason)


def skip_or_fail(reason: str) -> NoReturn:
    """Skip the calling test for want of PostgreSQL or Redis; fail instead where
    TEOREMA_REQUIRE_SERVICES=1 (.ci/run sets it once it has installed and started both)."""
    if os.environ.get("TEOREMA_REQUIRE_SERVICES") == "1":
        pytest.fail(f"PostgreSQL and Redis are required (TEOREMA_REQUIRE_SERVICES=1): {reason}")
    pytest.skip(reason)


@contextlib.contextmanager
def postgres_database(prefix: str = "teorema_it") -> Iterator[str]:
    """A database of our own on the loopback PostgreSQL, dropped afterwards; its DATABASE_URL."""
    name = f"{prefix}_{secrets.token_hex(5)}"
    with psycopg.connect(PG_SERVER, autocommit=True) as server:
        server.execute(f'CREATE DATABASE "{name}"')
        try:
            yield f"postgres://root@127.0.0.1:5432/{name}"
        finally:
            server.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@contextlib.contextmanager
def redis_database() -> Iterator[str]:
    """A Redis DB number nobody else uses (empty, then reserved by us), flushed afterwards."""
    token = secrets.token_hex(8)
    for number in range(15, 0, -1):
        client = redis.Redis(db=number, **REDIS)
        if client.dbsize() == 0 and client.set("teorema-it:reserved", token, nx=True) and client.dbsize() == 1:
            break
    else:
        raise RuntimeError("no empty Redis database among 1-15 to run in")
    try:
        yield f"redis://127.0.0.1:6379/{number}"
    finally:
        if client.get("teorema-it:reserved") == token.encode():  # still ours: flush only this DB
            client.flushdb()
        client.close()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def server_env(data_dir: Path, database_url: str, redis_url: str, **extra: str) -> dict[str, str]:
    """The environment of every process of one deployment."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TEOREMA_", "DJANGO_"))}
    return env | {
        "DATABASE_URL": database_url,
        "REDIS_URL": redis_url,
        "TEOREMA_RUN_IN_PROCESS": "0",
        "TEOREMA_DATA_DIR": str(data_dir),
        "ALLOWED_HOSTS": "127.0.0.1",
        API_KEY_ENV: "sk-fake-integration",
        "PYTHONUNBUFFERED": "1",
        **extra,
    }


@dataclass
class Process:
    name: str
    popen: subprocess.Popen
    log: Path
    port: int = 0

    @property
    def pid(self) -> int:
        return self.popen.pid

    def alive(self) -> bool:
        return self.popen.poll() is None

    def output(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def signal(self, number: int) -> None:
        if self.alive():
            os.kill(self.pid, number)


@dataclass
class Cluster:
    """Processes of one deployment; ``stop()`` ends every one of them (also on failure)."""

    workdir: Path
    env: dict[str, str]
    serve: str = "teorema.serve"  # the module a web process runs (a bench may run a variant)
    processes: list[Process] = field(default_factory=list)

    def manage(self, *args: str, timeout: float = 300) -> str:
        """Run a management command to completion; its stdout (or an error with its output)."""
        done = subprocess.run(
            [sys.executable, "manage.py", *args],
            cwd=ROOT,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        if done.returncode:
            raise RuntimeError(f"manage.py {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}")
        return done.stdout

    def spawn(self, name: str, argv: list[str], port: int = 0, **env: str) -> Process:
        log = self.workdir / f"{name}.log"
        with log.open("wb") as handle:
            popen = subprocess.Popen(
                argv, cwd=ROOT, env=self.env | env, stdout=handle, stderr=subprocess.STDOUT, start_new_session=True
            )
        process = Process(name, popen, log, port)
        self.processes.append(process)
        return process

    def web(self, name: str, timeout: float = 90, **env: str) -> Process:
        """A Daphne process on a free loopback port, once it answers HTTP."""
        port = free_port()
        argv = [sys.executable, "-m", self.serve, "-b", "127.0.0.1", "-p", str(port), "teorema.asgi:application"]
        process = self.spawn(name, argv, port, **env)
        self.wait(lambda: _answers(port), timeout, f"{name} to answer on port {port}", process)
        return process

    def proxy(self, name: str, webs: list[Process], timeout: float = 30) -> Process:
        """HAProxy with the server setup's own configuration (haproxy.cfg) in front of two web
        processes, on a free loopback port, once it answers HTTP."""
        haproxy = shutil.which("haproxy") or shutil.which("haproxy", path="/usr/sbin")
        if haproxy is None:
            skip_or_fail("HAProxy is not installed (Debian: apt-get install haproxy)")
        first, second = webs
        port = free_port()
        addresses = {
            "TEOREMA_PROXY_BIND": f"127.0.0.1:{port}",
            "TEOREMA_WEB_1": f"127.0.0.1:{first.port}",
            "TEOREMA_WEB_2": f"127.0.0.1:{second.port}",
        }
        process = self.spawn(name, [str(haproxy), "-db", "-f", str(ROOT / "haproxy.cfg")], port, **addresses)
        self.wait(lambda: _answers(port), timeout, f"{name} to answer on port {port}", process)
        return process

    def worker(self, name: str, *args: str, timeout: float = 90, **env: str) -> Process:
        """A debate_worker process, once it polls the queue."""
        process = self.spawn(name, [sys.executable, "manage.py", "debate_worker", *args], **env)
        self.wait(lambda: "debates at once" in process.output(), timeout, f"{name} to start", process)
        return process

    def wait(self, condition, timeout: float, what: str, process: Process | None = None) -> None:
        """Poll ``condition`` (bounded); fail with the logs when it never holds."""
        deadline = time.monotonic() + timeout
        while not condition():
            if process is not None and not process.alive():
                raise RuntimeError(f"{process.name} exited ({process.popen.returncode}):\n{process.output()[-4000:]}")
            if time.monotonic() > deadline:
                raise TimeoutError(f"waited {timeout:.0f}s for {what}\n{self.logs()}")
            time.sleep(0.1)

    def logs(self, limit: int = 3000) -> str:
        return "\n".join(f"--- {p.name} (pid {p.pid}) ---\n{p.output()[-limit:]}" for p in self.processes)

    def stop(self, grace: float = 10) -> None:
        for process in self.processes:
            process.signal(signal.SIGTERM)
        deadline = time.monotonic() + grace
        for process in self.processes:
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.popen.wait(max(0.1, deadline - time.monotonic()))
            if process.alive():
                process.signal(signal.SIGKILL)
                process.popen.wait(10)


@dataclass(frozen=True)
class Answer:
    status: int
    body: str


def get(port: int, path: str, session: str = "", timeout: float = 30) -> Answer:
    """GET ``path`` from the process on ``port`` (signed in with ``session``), whatever its status;
    a ``timeout`` (seconds, as a probe or a reader gives up) that passes raises TimeoutError."""
    headers = {"Cookie": f"sessionid={session}"} if session else {}
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", headers=headers)
    try:
        with LOOPBACK.open(request, timeout=timeout) as response:
            return Answer(response.status, response.read().decode())
    except urllib.error.HTTPError as error:
        return Answer(error.code, error.read().decode())


def _answers(port: int) -> bool:
    try:
        with LOOPBACK.open(f"http://127.0.0.1:{port}/accounts/login/", timeout=5) as response:
            return response.status == 200
    except OSError:
        return False


USER_SETUP = """
import json
from django.contrib.auth import get_user_model
from django.test import Client
from debates.models import ApiToken
from debates.tokens import assign_secret
user = get_user_model().objects.create_user({name!r})
token = ApiToken(user=user, name="integration")
raw = assign_secret(token)
token.save()
client = Client()
client.force_login(user)
print("USER " + json.dumps({{"token": raw, "session": client.cookies["sessionid"].value}}))
"""


@dataclass(frozen=True)
class Credentials:
    token: str  # API bearer token
    session: str  # session cookie of the same user, for the websockets


def create_user(cluster: Cluster, name: str) -> Credentials:
    """A user with an API token and a logged-in session, made by the deployment itself."""
    out = cluster.manage("shell", "-c", USER_SETUP.format(name=name))
    line = next(line for line in out.splitlines() if line.startswith("USER "))
    return Credentials(**json.loads(line.removeprefix("USER ")))


def ask(web: Process, credentials: Credentials, text: str, panel: str, **fields: object) -> int:
    """Submit a question through the JSON API of one web process; its id.

    ``fields``: more of the API's fields (``debate="always"``, ``force_panel=True``).
    """
    request = urllib.request.Request(
        f"http://127.0.0.1:{web.port}/api/questions",
        data=json.dumps({"text": text, "panel": panel, **fields}).encode(),
        headers={"Authorization": f"Bearer {credentials.token}", "Content-Type": "application/json"},
        method="POST",
    )
    with LOOPBACK.open(request, timeout=30) as response:
        return json.load(response)["id"]
