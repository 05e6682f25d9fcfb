"""Where a benchmarked process spends its CPU, by component: py-spy from outside the process.

py-spy samples a running process's Python stacks without stopping it for long and, with
``--gil``, only the thread holding the GIL: time a thread spends waiting for the GIL (the ORM's
thread behind a busy event loop, say) is not counted as work, which an in-process sampler
cannot tell apart. A sample's component is the innermost frame that belongs to one; it is
also counted under the innermost frame of our own code (``component @ file:function``).
"""

import signal
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

# (component, path fragments as py-spy prints them); the first component whose fragment is in a frame wins.
COMPONENTS = (
    (
        "consumer and websocket",
        (
            "debates/live/consumers.py",
            "channels/generic/",
            "channels/consumer.py",
            "daphne/",
            "autobahn/",
            "twisted/",
            "txaio/",
        ),
    ),
    (
        "live sink: fragments and state",
        ("debates/live/", "django/template/", "django/core/cache/", "debates/lib/render.py", "markdown_it/"),
    ),
    ("engine", ("debates/engine/", "debates/grounding/")),
    (
        "provider intake (httpx, SSE, JSON)",
        ("debates/providers/", "httpx/", "httpcore/", "h11/", "h2/", "hpack/", "anyio/"),
    ),
    (
        "submission (HTTP API)",
        (
            *("debates/integrations/", "debates/service.py", "debates/represent.py", "debates/tokens.py"),
            *("debates/forms.py", "debates/roster/readiness.py", "debates/middleware.py", "django/core/handlers/"),
        ),
    ),
    ("database (recorder, lease, ORM)", ("debates/runs/", "django/db/", "psycopg/", "django_tasks", "sqlite3")),
    ("channel layer", ("channels/layers.py", "channels_redis/", "redis/", "msgpack/")),
    ("thread hops (asgiref)", ("asgiref/", "concurrent/futures/")),
    ("event loop and socket I/O", ("asyncio/", "uvloop")),
)
PY_SPY = Path(sys.executable).with_name("py-spy")


def component(frames: list[str]) -> tuple[str, str]:
    """A sample's component, and the innermost frame of ours in it (where to look)."""
    name, ours = "", ""
    for frame in reversed(frames):
        if not ours and "(debates/" in frame:
            function, _, where = frame.partition(" (")
            ours = f"{where.split('/', 1)[1].rsplit(':', 1)[0]}:{function}"
        for candidate, fragments in COMPONENTS if not name else ():
            if any(fragment in frame for fragment in fragments):
                name = candidate
                break
        if name and ours:
            break
    return name or "other", ours


class Spy:
    """py-spy on some processes for the length of a ``with`` block; ``counts`` after it."""

    def __init__(self, pids: list[int]) -> None:
        self.pids = pids
        self.folder = tempfile.TemporaryDirectory(prefix="teorema-spy-")
        self.spies: list[tuple[subprocess.Popen, Path]] = []
        self.counts: Counter[str] = Counter()

    def __enter__(self) -> "Spy":
        for pid in self.pids:
            out = Path(self.folder.name, f"{pid}.txt")
            argv = [str(PY_SPY), "record", "--pid", str(pid), "--gil", "--rate", "100", "--format", "raw"]
            spy = subprocess.Popen([*argv, "--output", str(out)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            self.spies.append((spy, out))
        return self

    def __exit__(self, *_: object) -> None:
        for spy, _out in self.spies:
            spy.send_signal(signal.SIGINT)  # py-spy writes what it has and exits
        for spy, out in self.spies:
            _, errors = spy.communicate(timeout=60)
            if not out.exists():
                raise RuntimeError(f"py-spy wrote nothing ({spy.returncode}): {errors.decode()[-500:]}")
            for line in out.read_text().splitlines():
                stack, _, count = line.rpartition(" ")
                if count.isdigit():
                    name, ours = component(stack.split(";"))
                    self.counts[name] += int(count)
                    self.counts[f"{name} @ {ours or '-'}"] += int(count)
        self.folder.cleanup()
