"""teorema.heap: a server's loaded objects are frozen out of full collections, garbage is not,
and full collections are rarer."""

import gc
import os
import subprocess
import sys
import weakref
from pathlib import Path

from teorema.heap import freeze_loaded

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_THRESHOLDS = (700, 10, 10)  # CPython's


class Node:
    def __init__(self) -> None:
        self.me = self  # a cycle: only the collector frees it


def test_garbage_is_collected_before_the_rest_is_frozen() -> None:
    dead, alive = Node(), Node()
    gone = weakref.ref(dead)
    del dead
    frozen = gc.get_freeze_count()
    freeze_loaded()
    assert gone() is None
    assert gc.get_freeze_count() > frozen
    assert not any(o is alive for o in gc.get_objects())  # no collection walks it any more


def test_the_web_process_freezes_the_app_once_loaded(tmp_path: Path) -> None:
    """In a fresh interpreter, as Daphne loads it: the app's objects are frozen, few are left, and
    the URLconf, which Django would import on the first request, is among the frozen."""
    code = (
        "import gc, sys, teorema.asgi\n"
        "print(gc.get_freeze_count(), len(gc.get_objects()), 'teorema.urls' in sys.modules, gc.get_threshold()[2])"
    )
    clean = {k: v for k, v in os.environ.items() if not k.startswith("TEOREMA_") and k != "DJANGO_SETTINGS_MODULE"}
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env=clean | {"TEOREMA_DATA_DIR": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    frozen, walked, routed, full_every = done.stdout.split()
    assert int(frozen) > 10 * int(walked)
    assert routed == "True"
    assert int(full_every) == 10 * DEFAULT_THRESHOLDS[2]  # full collections a tenth as often
