"""Debate always, or only where the panel splits: calls, tokens and wall time per question.

Method. A set of questions, each with scripted blind answers for three voices of three model
families (closing blocks with an ANSWER line and claims, as the prompts ask): some where the
panel agrees, some 2–1 splits, some three-way splits. Fake providers over real loopback
sockets answer with a fixed time to first token (0.4 s) and 200 tokens/s, on the three wire
protocols. Each question runs through the bare engine (an in-memory sink) with
``debate = always`` and ``debate = on_dissent``, the two interleaved, ``--repeat`` times;
calls and tokens are counted from the contributions, wall time is the median. Protocols:
teorema (one debate round) and adversarial (critique + final positions, triage skipped).
Prices: $1 / $2 per million tokens in / out for every voice.

Usage: python bench/bench_dissent.py [--repeat 3] [--protocol teorema|adversarial|both]
"""

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, replace
from decimal import Decimal
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "teorema.settings")
os.environ.setdefault("TEOREMA_DATA_DIR", tempfile.mkdtemp(prefix="teorema-bench-"))
os.environ.setdefault("LOG_LEVEL", "WARNING")

import django  # noqa: E402

django.setup()

from debates.engine.events import ContributionFinished, Event, PanelChanged  # noqa: E402
from debates.engine.run import run  # noqa: E402
from debates.engine.spec import RunSpec, Seat  # noqa: E402
from debates.engine.vocabulary import DebateMode, Protocol  # noqa: E402
from debates.providers.base import Endpoint, Voice  # noqa: E402
from tests.fakes.answers import SYNTHESIS  # noqa: E402
from tests.fakes.provider_server import FakeProviderServer, Script  # noqa: E402

FAMILIES = ("alpha", "beta", "gamma")
WIRES = ("openai", "anthropic", "gemini")
REASONING = "The load profile decides it. " * 25  # about 150 words of reasoning before the block


def block(answer: str, *claims: str) -> str:
    listed = "\n".join(f"{i}. [fact] {c} | confidence: 80% | falsified if: the metrics say otherwise"
                       for i, c in enumerate(claims, 1))  # fmt: skip
    return f"{REASONING}\n\nANSWER: {answer}\nCLAIMS:\n{listed}\n"


REPLICAS = block("Add read replicas", "Reads are 90% of the queries", "Replicas take the read load")
SHARD = block("Shard the database", "Reads are 90% of the queries", "The dataset outgrows one node this year")
CACHE = block("Add a cache in front", "Reads repeat within minutes", "A cache is cheaper than replicas")
YES = block("Yes", "The migration is reversible", "The window is long enough")
NO = block("No", "The migration locks the table", "The window is too short")

# (name, the three blind answers)
QUESTIONS = [
    ("agree: replicas", (REPLICAS, REPLICAS, REPLICAS)),
    ("agree: yes", (YES, YES, YES)),
    ("agree: cache", (CACHE, CACHE, CACHE)),
    ("agree: no", (NO, NO, NO)),
    ("split 2-1", (REPLICAS, REPLICAS, SHARD)),
    ("split 2-1 yes/no", (YES, NO, YES)),
    ("three-way", (REPLICAS, SHARD, CACHE)),
    ("split 1-2", (SHARD, REPLICAS, SHARD)),
]
LATER = (
    "I checked the others' claims.\n\nON CLAIMS:\n- A1 confirm | matches the metrics\n"
    'ATTACKS:\n- B2 [weak evidence] "outgrows" | evidence: growth is 15%\n'
    "REPLIES:\n- A1 defended | the metrics hold\nCHANGE: none | nothing new\nANSWER: Add read replicas\n"
) + REASONING


@dataclass
class Tally:
    calls: int = 0
    tokens: int = 0
    cost: Decimal = Decimal("0")
    skipped: bool = False


class CountingSink:
    """Counts what was called; keeps nothing else."""

    def __init__(self) -> None:
        self.tally = Tally()

    async def emit(self, event: Event) -> None:
        if isinstance(event, ContributionFinished) and event.result.is_call:
            self.tally.calls += 1
            self.tally.tokens += event.result.tokens_in + event.result.tokens_out
            self.tally.cost += event.result.cost
        elif isinstance(event, PanelChanged) and "debate" in event.panel_run:
            self.tally.skipped = event.panel_run["debate"]["skipped"]


def seat(server: FakeProviderServer, index: int) -> Seat:
    wire = WIRES[index]
    base = {"openai": "/v1", "anthropic": "", "gemini": "/v1beta"}[wire]
    endpoint = Endpoint(name=f"{FAMILIES[index]}-provider", wire=wire, base_url=server.url + base, api_key="sk-bench",
                        connect_timeout=5, stall_timeout=30, total_timeout=120, max_retries=0)  # fmt: skip
    voice = Voice(name=FAMILIES[index], model=f"model-{FAMILIES[index]}", endpoint=endpoint, max_tokens=2000,
                  price_in=Decimal("1"), price_out=Decimal("2"))  # fmt: skip
    return Seat(f"p{index + 1}", f"Panelist {'ABC'[index]}", voice, FAMILIES[index].title(), FAMILIES[index],
                f"{FAMILIES[index]}-provider")  # fmt: skip


def spec_of(server: FakeProviderServer, protocol: Protocol, mode: DebateMode) -> RunSpec:
    moderator = replace(seat(server, 0), key="moderator", label="Moderator")
    moderator = replace(moderator, voice=replace(moderator.voice, model="model-moderator"), family="omega")
    return RunSpec(question="Read replicas or sharding for our reporting load?", protocol=protocol,
                   seats=tuple(seat(server, i) for i in range(3)), moderator=moderator, force_panel=True,
                   debate=mode)  # fmt: skip


def script(server: FakeProviderServer, answers: tuple[str, str, str]) -> None:
    def voice(answer: str):
        return lambda r: answer if "on your own" in r.prompt else LATER

    for family, answer in zip(FAMILIES, answers, strict=True):
        server.script(f"model-{family}", Script(answer=voice(answer), first_token_delay=0.4, tokens_per_second=200))
    server.script("model-moderator", Script(answer=SYNTHESIS, first_token_delay=0.4, tokens_per_second=200))


async def once(server: FakeProviderServer, protocol: Protocol, mode: DebateMode) -> tuple[Tally, float]:
    sink = CountingSink()
    started = time.perf_counter()
    finished = await run(spec_of(server, protocol, mode), sink)
    assert finished.status == "done", finished.error
    return sink.tally, time.perf_counter() - started


async def main(repeat: int, protocols: list[Protocol]) -> None:
    server = FakeProviderServer()
    server.start()
    try:
        for protocol in protocols:
            print(f"\n{protocol} — {repeat} runs per question and mode, median wall time")
            print(f"{'question':<18} {'calls':>11} {'tokens':>15} {'cost $':>17} {'wall s':>13}  debate")
            print(f"{'':<18} {'alw':>5} {'dis':>5} {'alw':>7} {'dis':>7} {'alw':>8} {'dis':>8} {'alw':>6} "
                  f"{'dis':>6}")  # fmt: skip
            totals = {m: [0, 0, Decimal("0"), 0.0] for m in DebateMode}
            for name, answers in QUESTIONS:
                script(server, answers)
                walls: dict[DebateMode, list[float]] = {m: [] for m in DebateMode}
                tallies: dict[DebateMode, Tally] = {}
                for _ in range(repeat):
                    for mode in DebateMode:  # interleaved, so drift hits both alike
                        tallies[mode], wall = await once(server, protocol, mode)
                        walls[mode].append(wall)
                medians = {m: statistics.median(walls[m]) for m in DebateMode}
                a, d = tallies[DebateMode.ALWAYS], tallies[DebateMode.ON_DISSENT]
                for mode, tally in tallies.items():
                    totals[mode][0] += tally.calls
                    totals[mode][1] += tally.tokens
                    totals[mode][2] += tally.cost
                    totals[mode][3] += medians[mode]
                print(f"{name:<18} {a.calls:>5} {d.calls:>5} {a.tokens:>7} {d.tokens:>7} {a.cost:>8.5f} "
                      f"{d.cost:>8.5f} {medians[DebateMode.ALWAYS]:>6.2f} {medians[DebateMode.ON_DISSENT]:>6.2f}  "
                      f"{'skipped' if d.skipped else 'contested claims only'}")  # fmt: skip
            a, d = totals[DebateMode.ALWAYS], totals[DebateMode.ON_DISSENT]
            print(f"{'total':<18} {a[0]:>5} {d[0]:>5} {a[1]:>7} {d[1]:>7} {a[2]:>8.5f} {d[2]:>8.5f} {a[3]:>6.2f} "
                  f"{d[3]:>6.2f}")  # fmt: skip
            print(f"on_dissent / always: calls {d[0] / a[0]:.2f}, tokens {d[1] / a[1]:.2f}, cost "
                  f"{d[2] / a[2]:.2f}, wall {d[3] / a[3]:.2f}")  # fmt: skip
    finally:
        server.stop()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--protocol", choices=["teorema", "adversarial", "both"], default="both")
    args = parser.parse_args()
    chosen = [Protocol.TEOREMA, Protocol.ADVERSARIAL] if args.protocol == "both" else [Protocol(args.protocol)]
    asyncio.run(main(args.repeat, chosen))
