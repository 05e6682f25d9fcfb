"""What a CLI voice adds to a voice's first token, and how its status-line reader reads its corpus.

1. First token: the same model on the same fake provider server (in this process's thread, a real
   loopback socket), called through its API wire (``providers.stream`` over httpx) and through its
   CLI (Claude Code, Gemini CLI, Qwen Code, Codex: the binaries pinned in package-lock.json): the time from
   the call to its first words, median of N interleaved calls each; the difference is the process
   start and the CLI's own start-up. The fake answers at once, so the figure is all overhead.
2. The notices reader (debates/providers/cli/notices.py) over tests/corpus/cli/: how many notices it
   reads as one (recall), and how many answers it leaves alone (precision first: every one).

Run: ``.venv/bin/python bench/bench_cli.py [--runs 5]`` (after ``make node_modules/.installed``).
"""

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "teorema.settings")

from debates.providers import stream  # noqa: E402
from debates.providers.base import Chunk, Message, Voice  # noqa: E402
from debates.providers.cli import notices, sandbox  # noqa: E402
from debates.providers.client import close_shared_client  # noqa: E402
from tests.fakes.clis import BIN, MODELS, WIRES, cli_voice  # noqa: E402
from tests.fakes.provider_server import FakeProviderServer  # noqa: E402

PROMPT = [Message("system", "You are a panelist."), Message("user", "Is seven a prime number?")]
CLIS = ("claude-code", "gemini-cli", "qwen-code", "codex")
CORPUS = ROOT / "tests" / "corpus" / "cli"


async def first_words(voice: Voice) -> float:
    """Seconds from the call to its first words; the call is then read to its end."""
    began, first = time.perf_counter(), 0.0
    async for event in stream(voice, PROMPT):
        if isinstance(event, Chunk) and not first:
            first = time.perf_counter() - began
    return first


async def measure(server: FakeProviderServer, runs: int) -> None:
    print(f"First words, median of {runs} calls each (the fake answers at once):")
    print(f"  {'CLI':12} {'API wire':>10} {'CLI':>10} {'the CLI adds':>14}")
    for cli in CLIS:
        api, through_cli = [], []
        for _ in range(runs):  # interleaved: a slow moment of the machine falls on both
            api.append(await first_words(server.voice(WIRES[cli], MODELS[cli])))
            through_cli.append(await first_words(cli_voice(server, cli)))
        a, c = statistics.median(api), statistics.median(through_cli)
        print(f"  {cli:12} {a * 1000:8.0f} ms {c * 1000:8.0f} ms {(c - a) * 1000:11.0f} ms")
    await close_shared_client()


def read_corpus() -> None:
    samples = {p.name: p.read_text(encoding="utf-8") for p in sorted(CORPUS.glob("*.txt"))}
    said = {name: notices.notice(text) for name, text in samples.items()}
    notes = [n for n in said if n.startswith("notice_")]
    answers = [n for n in said if n.startswith("answer_")]
    read = sum(said[n] is not None for n in notes)
    overruled = sum(said[n] is not None for n in answers)
    began = time.perf_counter()
    for _ in range(200):
        for text in samples.values():
            notices.notice(text)
    per_sample = (time.perf_counter() - began) / (200 * len(samples)) * 1e6
    print(
        f"Notices reader, tests/corpus/cli/: {read}/{len(notes)} notices read as one (recall), "
        f"{len(answers) - overruled}/{len(answers)} answers left alone (precision), {per_sample:.0f} µs a sample."
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="calls per voice and wire (median)")
    args = parser.parse_args()
    read_corpus()
    with tempfile.TemporaryDirectory() as home, FakeProviderServer() as server:
        os.environ["HOME"] = home  # nobody's login: each CLI runs on the fake's key
        scratch = ROOT / "data" / "bench-cli"
        sandbox.SETTINGS = sandbox.Settings(scratch=scratch, path=(str(BIN),))
        asyncio.run(measure(server, args.runs))


if __name__ == "__main__":
    main()
