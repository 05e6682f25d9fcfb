"""Daphne on uvloop: ``python -m teorema.serve`` takes Daphne's own arguments.

Daphne creates its event loop when it is imported, so the policy is set before that import.
At 50 debates streaming to their viewers, asyncio's pure-Python loop took a quarter of the
process's CPU (docs/benchmarks.md); uvloop runs the same loop in C and Twisted's asyncio
reactor works on it unchanged.

The GIL's switch interval is 2 ms, not CPython's 5. The runs' writes, the API and the viewers'
snapshots run on threads beside the event loop, and each SQLite call there gives the GIL up and
then waits for the busy loop to hand it back, up to one interval per call: with 50 debates at once
a vote's write waited up to a second, and a round's first words (shown after the votes before
them) or a late viewer's snapshot waited with it. At 2 ms, 5 interleaved pairs on a saturated
2-core machine: first token p95 60-206 ms against 61-3,393 (two runs stalled for seconds at 5 ms,
none at 2), chunk p95 143-185 against 166-454 ms, the same CPU (docs/benchmarks.md).
"""

import asyncio
import sys

import uvloop

asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())

from daphne.cli import CommandLineInterface  # noqa: E402  (after the policy: Daphne makes its loop at import)

SWITCH_INTERVAL = 0.002  # seconds


def main() -> None:
    sys.setswitchinterval(SWITCH_INTERVAL)
    CommandLineInterface.entrypoint()


if __name__ == "__main__":
    main()
