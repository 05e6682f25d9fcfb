"""Every garbage collection of 2 ms or more, logged by each Python process the bench starts.

The bench puts this folder on its servers' PYTHONPATH, so Python imports this module at start
(``site``), before any of Teorema's. A collection stops the whole process, its event loop with
it: a pause shows in every viewer's latency at once. One line per pause in
``$TEOREMA_BENCH_GC_LOG/<pid>``: when it ended (time.time()), how long it took (s), the generation.
"""

import gc
import os
import time

FOLDER = os.environ.get("TEOREMA_BENCH_GC_LOG", "")
began = 0.0


def note(phase: str, info: dict) -> None:
    global began
    if phase == "start":
        began = time.perf_counter()
        return
    took = time.perf_counter() - began
    if took >= 0.002:
        with open(os.path.join(FOLDER, str(os.getpid())), "a") as log:
            log.write(f"{time.time():.4f} {took:.4f} {info['generation']}\n")


if FOLDER:
    gc.callbacks.append(note)
