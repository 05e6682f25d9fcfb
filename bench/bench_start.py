"""`make run`'s start: a new user's first and a returning user's, from the command to the first answer.

Method. Each round makes a fresh data directory (``TEOREMA_DATA_DIR``, SQLite) and runs ``make run``
in it twice, each time from the command to the first 200 of ``/livez`` (polled every 20 ms), then
stopped: the first start migrates, imports the default roster and creates the admin (``--prepare``);
the second finds all of that done, as a returning user's does. The venv is made before the first
round, so neither start installs anything. Reported: each start, the medians of --runs rounds, and
the ratio of the medians (noisy machines: compare the ratio, not the seconds across runs).

Usage: python bench/bench_start.py [--runs 5]
"""

import argparse
import os
import signal
import socket
import statistics
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GIVE_UP_S = 180.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=1) as response:
            return response.status == 200
    except (urllib.error.URLError, ConnectionError, TimeoutError):
        return False


def start(data: Path) -> float:
    """Seconds from ``make run`` to its first ``/livez`` 200, then the server stopped."""
    port = free_port()
    env = os.environ | {"TEOREMA_DATA_DIR": str(data), "HOST": "127.0.0.1", "PORT": str(port)}
    began = time.monotonic()
    server = subprocess.Popen(
        ["make", "--no-print-directory", "run"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,  # make, the server and its children: stopped together
    )
    try:
        while not answers(f"http://127.0.0.1:{port}/livez"):
            if server.poll() is not None:
                raise SystemExit(f"make run exited with {server.returncode} before answering")
            if time.monotonic() - began > GIVE_UP_S:
                raise SystemExit(f"make run did not answer within {GIVE_UP_S:g} s")
            time.sleep(0.02)
        return time.monotonic() - began
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="rounds, each a first and a returning start")
    runs = parser.parse_args().runs
    if runs < 1:
        parser.error("--runs must be at least 1")
    subprocess.run(["make", "--no-print-directory", ".venv/.installed"], cwd=ROOT, check=True)
    first, returning = [], []
    for round_ in range(1, runs + 1):
        with tempfile.TemporaryDirectory(prefix="teorema-start-") as data:
            first.append(start(Path(data)))
            returning.append(start(Path(data)))
        load = os.getloadavg()[0]
        print(f"round {round_}: first {first[-1]:.2f} s, returning {returning[-1]:.2f} s (load {load:.1f})")
    a, b = statistics.median(first), statistics.median(returning)
    print(f"median of {runs}: first start {a:.2f} s, returning start {b:.2f} s (first / returning ×{a / b:.2f})")


if __name__ == "__main__":
    main()
