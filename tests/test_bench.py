"""Every bench still starts: a bench is run by hand, rarely, and one that broke with an import went
unnoticed until someone needed its figures."""

import subprocess
import sys
from pathlib import Path

import pytest

BENCHES = sorted((Path(__file__).resolve().parent.parent / "bench").glob("bench_*.py"))


def test_there_are_benches():
    assert len(BENCHES) >= 10


@pytest.mark.parametrize("bench", BENCHES, ids=lambda path: path.stem)
def test_a_bench_starts_and_says_how_to_run_it(bench):
    done = subprocess.run([sys.executable, str(bench), "--help"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "usage:" in done.stdout
