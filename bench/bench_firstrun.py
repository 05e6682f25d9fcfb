"""The keyless first question: the default Local trio end to end, idle and beside a busy neighbour.

Method. A fresh data directory (SQLite) is migrated and given the default roster with
``manage.py bootstrap``, as ``make run`` does; none of that is timed. Then each run is
``manage.py ask QUESTION --panel local`` in a process of its own, exactly as a new user types it:
Django's start, the embedded SmolLM2-135M's load, 3 blind answers, 3 debate turns and the
synthesis (no judge call: the engine skips it on a small model). Measured per run: wall time from
the process's start to its exit, and the CPU time (user + system) of that process and its
children, from ``os.wait4``; the tokens in and out and the calls are read from the question's
stored contributions. "busy" runs the same command while another process spins on one core
(``while True: pass``), started before and killed after it. With --threads, each value is a
TEOREMA_LOCAL_THREADS to compare ("default": the app's own choice). The runs alternate (each
setting idle, then busy, then the next setting, round after round) so that a change in the
machine's load meets them alike; the load average is printed at each run's start. Reported: each
run, then the median of --runs per setting and condition, and the ratio busy / idle of the medians.

The model samples at temperature 0.7 (0.3 for the moderator), so the tokens differ from run to
run: compare seconds with the tokens beside them.

Usage: python bench/bench_firstrun.py [--runs 3] [--threads default 2 …] [--conditions idle busy]
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
QUESTION = "Should a small team store its invoices in PostgreSQL or in MongoDB?"
TOKENS = (
    "import json; from django.db.models import Count, Sum; from debates.models import Contribution, Question; "
    "q = Question.objects.latest('id'); c = Contribution.objects.filter(round__question=q); "
    "t = c.aggregate(i=Sum('tokens_in'), o=Sum('tokens_out'), n=Count('id')); "
    "print(json.dumps([q.status, t['i'] or 0, t['o'] or 0, t['n']]))"
)


@dataclass(frozen=True)
class Run:
    threads: str
    condition: str
    wall: float
    cpu: float
    status: str
    tokens_in: int
    tokens_out: int
    calls: int


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3, help="runs per setting and condition (the median is reported)")
    parser.add_argument(
        "--threads", nargs="+", default=["default"], help='TEOREMA_LOCAL_THREADS values ("default": unset)'
    )
    parser.add_argument("--conditions", nargs="+", choices=["idle", "busy"], default=["idle", "busy"])
    args = parser.parse_args()
    env = {**os.environ, "TEOREMA_DATA_DIR": tempfile.mkdtemp(prefix="teorema-firstrun-"), "LOG_LEVEL": "WARNING"}
    for name in ("DATABASE_URL", "REDIS_URL", "TEOREMA_LOCAL_THREADS"):
        env.pop(name, None)
    manage("migrate", "-v0", env=env)
    manage("bootstrap", env=env | {"TEOREMA_ADMIN_PASSWORD": "bench"})
    print(f"{os.cpu_count()} cores; " + f'question: "{QUESTION}"')
    runs = []
    for _ in range(args.runs):
        for threads in args.threads:
            setting = env if threads == "default" else env | {"TEOREMA_LOCAL_THREADS": threads}
            for condition in args.conditions:
                run = ask(threads, condition, setting)
                runs.append(run)
                print(
                    f"  threads {run.threads:<7}  {run.condition:<4}  {run.wall:6.1f} s wall  {run.cpu:6.1f} s CPU  "
                    f"{run.tokens_in:5} in  {run.tokens_out:4} out  {run.calls} calls  {run.status}",
                    flush=True,
                )
    print(f"\nmedian of {args.runs}")
    for threads in args.threads:
        medians = {}
        for condition in args.conditions:
            mine = [r for r in runs if (r.threads, r.condition) == (threads, condition)]
            medians[condition] = statistics.median(r.wall for r in mine)
            cpu = statistics.median(r.cpu for r in mine)
            out = statistics.median(r.tokens_out for r in mine)
            print(
                f"  threads {threads:<7}  {condition:<4}  {medians[condition]:6.1f} s wall  {cpu:6.1f} s CPU"
                f"  {out:5.0f} tokens out  ({cpu / out * 1000:.0f} ms of CPU a token out)"
            )
        if len(medians) == 2:
            print(f"  threads {threads:<7}  busy / idle: {medians['busy'] / medians['idle']:.2f}× wall")


def manage(*command: str, env: dict[str, str]) -> str:
    done = subprocess.run(
        [sys.executable, "manage.py", *command], cwd=ROOT, env=env, capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        sys.exit(f"manage.py {' '.join(command)} failed:\n{done.stdout}{done.stderr}")
    return done.stdout


def ask(threads: str, condition: str, env: dict[str, str]) -> Run:
    """One ``manage.py ask``, its wall and CPU time, and what its question stored."""
    neighbour = subprocess.Popen([sys.executable, "-c", "while True: pass"]) if condition == "busy" else None
    try:
        print(f"  (load {os.getloadavg()[0]:.1f})", end="", flush=True)
        began = time.monotonic()
        child = subprocess.Popen(
            [sys.executable, "manage.py", "ask", QUESTION, "--panel", "local"],
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        _, _, usage = os.wait4(child.pid, 0)
        wall = time.monotonic() - began
    finally:
        if neighbour is not None:
            neighbour.kill()
            neighbour.wait()
    status, tokens_in, tokens_out, calls = json.loads(manage("shell", "--no-imports", "-c", TOKENS, env=env))
    return Run(threads, condition, wall, usage.ru_utime + usage.ru_stime, status, tokens_in, tokens_out, calls)


if __name__ == "__main__":
    main()
