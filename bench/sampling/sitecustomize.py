"""Where a benchmarked process spends its CPU, by component: a stack sampler started at import.

Loaded through PYTHONPATH by bench_scale.py (never by the app). With TEOREMA_BENCH_SAMPLES set,
a daemon thread looks at every other thread's Python stack every 2 ms and counts, per
component, the samples whose innermost recognised frame belongs to it; a thread waiting
(in the event loop's select, a lock, a queue) counts as idle. Each is also counted with the innermost
frame of our own code under it (``component @ file:function``). The counts are rewritten every
second to ``$TEOREMA_BENCH_SAMPLES.<pid>`` as JSON; the bench diffs them over a repetition and
splits the process's measured CPU time by the busy samples' shares.
"""

import json
import os
import sys
import threading
import time
from collections import Counter

# (component, path fragments); the first component whose fragment is in a frame's file wins.
COMPONENTS = (
    ("consumer and websocket", ("/debates/live/consumers.py", "/channels/generic/", "/channels/consumer.py",
                                "/daphne/", "/autobahn/", "/twisted/", "/txaio/")),
    ("live sink: fragments and state", ("/debates/live/", "/django/template/", "/django/core/cache/")),
    ("engine", ("/debates/engine/", "/debates/grounding/")),
    ("provider intake (httpx, SSE, JSON)", ("/debates/providers/", "/httpx/", "/httpcore/", "/h11/", "/h2/",
                                            "/hpack/", "/anyio/")),
    ("database (recorder, lease, ORM)", ("/debates/runs/", "/django/db/", "/psycopg/", "/django_tasks")),
    ("channel layer", ("/channels/layers.py", "/channels_redis/", "/redis/", "/msgpack/")),
    ("thread hops (asgiref)", ("/asgiref/", "/concurrent/futures/")),
    ("event loop and socket I/O", ("/asyncio/",)),
)  # fmt: skip
WAITING = {("selectors.py", "select"), ("threading.py", "wait"), ("thread.py", "_worker"), ("queue.py", "get")}
INTERVAL = 0.002


def component(frame) -> tuple[str, str]:
    """The sample's component, and the innermost frame of ours under it (where to look)."""
    innermost = frame.f_code
    if (os.path.basename(innermost.co_filename), innermost.co_name) in WAITING:
        return "idle", ""
    name, ours = "", ""
    while frame is not None and not ours:
        path = frame.f_code.co_filename
        if "/debates/" in path:
            ours = f"{path.split('/debates/', 1)[1]}:{frame.f_code.co_name}"
        for candidate, fragments in COMPONENTS if not name else ():
            if any(fragment in path for fragment in fragments):
                name = candidate
                break
        frame = frame.f_back
    return name or "other", ours


def sample(out: str) -> None:
    counts: Counter[str] = Counter()
    me, written = threading.get_ident(), time.monotonic()
    while True:
        time.sleep(INTERVAL)
        for ident, frame in sys._current_frames().items():
            if ident != me:
                name, ours = component(frame)
                counts[name] += 1
                counts[f"{name} @ {ours or '-'}"] += 1
        if time.monotonic() - written >= 1:
            written = time.monotonic()
            with open(f"{out}.{os.getpid()}.part", "w") as handle:
                json.dump(counts, handle)
            os.replace(f"{out}.{os.getpid()}.part", f"{out}.{os.getpid()}")


if target := os.environ.get("TEOREMA_BENCH_SAMPLES"):
    # The sampler runs when the busy thread yields the GIL: yielding often (not every 5 ms) keeps
    # samples from piling up on the calls that release it (I/O, file reads).
    sys.setswitchinterval(0.0005)
    threading.Thread(target=sample, args=(target,), name="bench-sampler", daemon=True).start()
