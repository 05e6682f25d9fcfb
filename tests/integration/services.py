"""Private PostgreSQL and Redis servers on loopback, for the tests that stop and restart them.

The shared servers on 5432 and 6379 carry every other test: restarting them would break those.
A chaos test starts its own on a free port, in a directory of its own, and restarts it at will.
PostgreSQL refuses to run as root: as root (here and in CI) it runs as the ``postgres`` OS
user, in a directory that user owns.
"""

import contextlib
import os
import pwd
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import psycopg
import redis

from tests.integration.cluster import free_port, skip_or_fail

REDIS_SERVER = "redis-server"
POSTGRES_ROOTS = ("/usr/lib/postgresql",)  # Debian's packages: /usr/lib/postgresql/<version>/bin
START_PATIENCE = 30.0  # seconds: a bound for a loaded machine, never what is tested


def postgres_bin() -> Path | None:
    """The newest installed PostgreSQL's bin directory (Debian's layout, else the PATH)."""
    found = sorted(
        (p.parent for root in POSTGRES_ROOTS for p in Path(root).glob("*/bin/pg_ctl")),
        key=lambda path: int(path.parent.name) if path.parent.name.isdigit() else 0,
    )
    if found:
        return found[-1]
    on_path = shutil.which("pg_ctl")
    return Path(on_path).parent if on_path else None


def require_binaries() -> None:
    """Skip the calling test where redis-server or PostgreSQL's binaries are missing (fail
    where TEOREMA_REQUIRE_SERVICES=1, as for the shared servers)."""
    if shutil.which(REDIS_SERVER) is None:
        skip_or_fail("redis-server is not installed")
    if postgres_bin() is None:
        skip_or_fail("PostgreSQL's binaries (initdb, pg_ctl) are not installed")


def until(condition: Callable[[], bool], what: str, patience: float = START_PATIENCE) -> None:
    deadline = time.monotonic() + patience
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError(f"waited {patience:g}s for {what}")
        time.sleep(0.05)


@dataclass
class PrivateRedis:
    """A redis-server of our own, without persistence: a restart loses everything, as a lost
    cache machine would."""

    workdir: Path
    port: int = field(default_factory=free_port)
    process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def answers(self) -> bool:
        try:
            return bool(redis.Redis(port=self.port, socket_connect_timeout=1).ping())
        except redis.RedisError:
            return False

    def start(self) -> None:
        argv = [REDIS_SERVER, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
        with (self.workdir / "redis.log").open("ab") as log:
            self.process = subprocess.Popen([*argv, "--dir", str(self.workdir)], stdout=log, stderr=log)
        until(self.answers, f"redis-server to answer on port {self.port}")

    def stop(self) -> None:
        """Killed, as a crash would: no goodbye to its clients."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(10)

    @contextlib.contextmanager
    def frozen(self) -> Iterator[None]:
        """Unreachable for the block, as behind a network partition or on a hung machine: its port
        takes connections and every byte sent, and nothing comes back (SIGSTOP, then SIGCONT)."""
        assert self.process is not None
        self.process.send_signal(signal.SIGSTOP)
        try:
            yield
        finally:
            self.process.send_signal(signal.SIGCONT)


@contextlib.contextmanager
def private_redis() -> Iterator[PrivateRedis]:
    with tempfile.TemporaryDirectory(prefix="teorema-redis-") as workdir:
        server = PrivateRedis(Path(workdir))
        server.start()
        try:
            yield server
        finally:
            server.stop()


@dataclass
class PrivatePostgres:
    """A PostgreSQL cluster of our own (initdb), its superuser ``root`` trusted on loopback."""

    workdir: Path
    port: int = field(default_factory=free_port)

    @property
    def data(self) -> Path:
        return self.workdir / "data"

    def url(self, database: str) -> str:
        return f"postgres://root@127.0.0.1:{self.port}/{database}"

    def run(self, *argv: str) -> None:
        """A PostgreSQL program as the OS user that owns the cluster."""
        command = [str(postgres_bin() / argv[0]), *argv[1:]]
        if os.geteuid() == 0:
            command = ["runuser", "-u", "postgres", "--", *command]
        subprocess.run(command, check=True, capture_output=True, timeout=120)

    def init(self) -> None:
        if os.geteuid() == 0:  # postgres refuses root: the cluster is the postgres user's
            owner = pwd.getpwnam("postgres")
            os.chown(self.workdir, owner.pw_uid, owner.pw_gid)
        self.run("initdb", "-D", str(self.data), "-U", "root", "--auth=trust", "-E", "UTF8", "--no-sync")

    def answers(self) -> bool:
        try:
            psycopg.connect(self.url("postgres"), connect_timeout=1).close()
        except psycopg.OperationalError:
            return False
        return True

    def start(self) -> None:
        options = f"-p {self.port} -k {self.workdir} -c listen_addresses=127.0.0.1 -c fsync=off"
        self.run("pg_ctl", "-D", str(self.data), "-l", str(self.workdir / "postgres.log"), "-o", options, "-w", "start")
        until(self.answers, f"PostgreSQL to answer on port {self.port}")

    def stop(self, mode: str = "immediate") -> None:
        """``immediate``: every server process quits at once, as in a crash (recovery on start)."""
        self.run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "stop")

    def create_database(self, name: str) -> str:
        """A new database; its DATABASE_URL."""
        with psycopg.connect(self.url("postgres"), autocommit=True) as server:
            server.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)


@contextlib.contextmanager
def private_postgres() -> Iterator[PrivatePostgres]:
    # Not under pytest's tmp_path: its directories are root's alone, and postgres must reach its own.
    workdir = Path(tempfile.mkdtemp(prefix="teorema-pg-"))
    server = PrivatePostgres(workdir)
    try:
        server.init()
        server.start()
        yield server
    finally:
        with contextlib.suppress(subprocess.CalledProcessError, subprocess.TimeoutExpired):
            server.stop()
        shutil.rmtree(workdir, ignore_errors=True)
