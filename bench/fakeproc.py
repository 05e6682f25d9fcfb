"""The fake provider server in a process of its own, for benchmarks that must not share its GIL.

A benchmark whose fake provider runs in its own process measures Teorema, not the fake: with the
fake in the same process, 150 paced streams take CPU from the app and hide its costs. Each model
gets a pace (time to first token, tokens per second, words); every answer is made of unique
words ``<model>.<request>.w<i>`` between an optional prefix and suffix, so a client can tell which
word it received. The child notes, with ``time.time()`` (one clock for every process on the
machine, as tests/integration/viewer.py stamps arrivals), when each request arrived, when each
word was written and, with ``tag`` (a regex whose first match in a request's body names the
run it belongs to, such as a marker in the question), when each run's last response ended: its
last byte written; ``timings()`` fetches and clears them. Between ``hold()`` and ``release()``
a call's first word waits (a bench connects its viewers meanwhile).

Used by bench_scale.py and bench_council.py::

    with FakeProcess({"model-alpha": Pace(1.0, 200, 40)}, prefix="Add read replicas. ") as fake:
        fake.base_url("openai")
        ...
        words, requests, ends = fake.timings()
"""

import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Self

ROOT = Path(__file__).resolve().parent.parent
HELD = "held"  # a file beside the report: the child holds first words while it exists


@dataclass(frozen=True)
class Pace:
    first_token: float = 0.5  # seconds before the first word (a non-streamed answer waits for all of it)
    tokens_per_second: float = 20.0
    words: int = 60
    prefix: str | None = None  # this model's own prefix instead of the common one
    # The first unique word before the prefix, on a line of its own: the call's first written
    # word is then one a client can follow (a voice's first words are shown at once, later ones
    # within the coalescing window).
    lead: bool = False


@dataclass(frozen=True)
class Arrival:
    model: str
    number: int
    at: float  # when the request reached the fake (time.time())
    tag: str = ""  # the run it belongs to: the tag regex's first match in its body ("" without one)


class FakeProcess:
    """Start with ``with``; ``base_url(wire)`` is what a Provider row holds."""

    def __init__(self, paces: dict[str, Pace], prefix: str = "", suffix: str = "", tag: str = "") -> None:
        self.paces, self.prefix, self.suffix, self.tag = paces, prefix, suffix, tag
        self.report = Path(tempfile.mkdtemp(prefix="teorema-fake-")) / "timings.json"
        self.held = self.report.with_name(HELD)  # while it exists, first words wait
        self.process: subprocess.Popen | None = None
        self.port = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def base_url(self, wire: str) -> str:
        return {"openai": f"{self.url}/v1", "anthropic": self.url, "gemini": f"{self.url}/v1beta"}[wire]

    def __enter__(self) -> Self:
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            self.port = sock.getsockname()[1]
        paces = {m: asdict(p) for m, p in self.paces.items()}
        config = json.dumps({"paces": paces, "prefix": self.prefix, "suffix": self.suffix, "tag": self.tag})
        env = {**os.environ, "DJANGO_SETTINGS_MODULE": "teorema.settings"}
        self.process = subprocess.Popen(
            [sys.executable, __file__, config, str(self.port), str(self.report)], cwd=ROOT, env=env
        )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return self
            except OSError:
                time.sleep(0.1)
        self.__exit__()
        raise RuntimeError("the fake provider process did not start")

    def __exit__(self, *exc: object) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(10)

    def hold(self) -> None:
        """From now on each call's first word waits for ``release()``."""
        self.held.touch()

    def release(self) -> None:
        self.held.unlink(missing_ok=True)

    def cpu_seconds(self) -> float:
        """utime + stime of the fake's process so far."""
        assert self.process is not None
        fields = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def timings(self) -> tuple[dict[str, float], list[Arrival], dict[str, float]]:
        """Since the last call (then cleared): when each word was written, each request arrived,
        and each tagged run's last response ended (tag -> time.time())."""
        assert self.process is not None
        self.report.unlink(missing_ok=True)
        self.process.send_signal(signal.SIGUSR1)
        for _ in range(200):
            if self.report.exists():
                try:
                    data = json.loads(self.report.read_text())
                except ValueError:
                    pass  # still being written
                else:
                    return data["words"], [Arrival(*row) for row in data["requests"]], data["ends"]
            time.sleep(0.05)
        raise RuntimeError("the fake provider process did not report its timings")


def serve(config: dict, port: int, report: Path) -> None:
    """The child: the fake server with the paces, noting arrivals and word writes."""
    sys.path.insert(0, str(ROOT))
    from tests.fakes import wire
    from tests.fakes.provider_server import FakeProviderServer, Script

    written: dict[str, float] = {}
    arrived: list[list] = []
    ended: dict[str, float] = {}  # tag -> when its last response's last byte was written
    prefix, suffix = config["prefix"], config["suffix"]
    tag = re.compile(config["tag"]) if config["tag"] else None

    def tag_of(body: dict) -> str:
        found = tag.search(json.dumps(body)) if tag else None
        return found[0] if found else ""

    def noting(write):
        def wrapped(model, text, *args, **kwargs):
            now = time.time()
            for word in text.split():
                if word.startswith(model):
                    written[word] = now
            return write(model, text, *args, **kwargs)

        return wrapped

    def ending(tail):
        def wrapped(model, usage, sources, finish, body, *rest):
            events = tail(model, usage, sources, finish, body, *rest)
            if run := tag_of(body):  # the events are written at once, as soon as this returns
                ended[run] = time.time()
            return events

        return wrapped

    for protocol in (wire.OPENAI, wire.ANTHROPIC, wire.GEMINI):
        object.__setattr__(protocol, "piece", noting(protocol.piece))
        object.__setattr__(protocol, "full", noting(protocol.full))
        object.__setattr__(protocol, "tail", ending(protocol.tail))

    server = FakeProviderServer(port=port)
    for model, pace in config["paces"].items():

        def answer(request, words=pace["words"], own=pace["prefix"], lead=pace["lead"]) -> str:
            arrived.append([request.model, request.number, time.time(), tag_of(request.body)])
            unique = [f"{request.model}.{request.number}.w{i}" for i in range(words)]
            first = f"{unique.pop(0)}\n" if lead and unique else ""
            return first + (prefix if own is None else own) + " ".join(unique) + suffix

        server.script(
            model,
            Script(
                answer=answer,
                first_token_delay=pace["first_token"],
                tokens_per_second=pace["tokens_per_second"],
                hold=report.with_name(HELD).exists,
            ),
        )

    def dump(*_: object) -> None:
        words, requests, ends = dict(written), list(arrived), dict(ended)
        written.clear()
        arrived.clear()
        ended.clear()
        partial = report.with_suffix(".part")
        partial.write_text(json.dumps({"words": words, "requests": requests, "ends": ends}))
        partial.rename(report)

    signal.signal(signal.SIGUSR1, dump)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    with server:
        while True:
            signal.pause()


if __name__ == "__main__":
    serve(json.loads(sys.argv[1]), int(sys.argv[2]), Path(sys.argv[3]))
