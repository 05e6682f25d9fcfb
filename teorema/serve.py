"""Daphne on uvloop: ``python -m teorema.serve`` takes Daphne's own arguments.

Daphne creates its event loop when it is imported, so the policy is set before that import.
At 50 debates streaming to their viewers, asyncio's pure-Python loop took a quarter of the
process's CPU (docs/benchmarks.md); uvloop runs the same loop in C and Twisted's asyncio
reactor works on it unchanged.
"""

import asyncio

import uvloop

asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())

from daphne.cli import CommandLineInterface  # noqa: E402  (after the policy: Daphne makes its loop at import)


def main() -> None:
    CommandLineInterface.entrypoint()


if __name__ == "__main__":
    main()
