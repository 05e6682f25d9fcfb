"""Django set up for a bench run as a script (``python bench/bench_x.py``): the project on the path,
its settings, a throwaway data directory and quiet logs, unless the environment says otherwise."""

import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def django_setup() -> None:
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "teorema.settings")
    os.environ.setdefault("TEOREMA_DATA_DIR", tempfile.mkdtemp(prefix="teorema-bench-"))
    os.environ.setdefault("LOG_LEVEL", "WARNING")
    import django

    django.setup()
