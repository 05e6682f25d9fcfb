"""The checks between rounds: what they get right on the corpus of computations as models write
them, what the checking step costs per round, and what it adds before the next round's first token.

Method. (0) *The corpus* (tests/corpus/checks/models.jsonl, labelled by what a person would say of
each claim): every row is written into a voice's answer (a sentence of its prose, a claim or a CALC
line of its closing block), read by the closing-block reader and checked as one round, as the engine
checks a round (tests/grounding/corpus.py). Printed: true claims marked ✗ and wrong values stated as
facts (the goals: 0), false claims caught, true claims confirmed, claims left unchecked.
(1) *The step.* A round of five contributions as real answers are written (prose, then a
closing block) stating 20 computations between them — powers, percentages both ways, growth,
unit conversions, an identity, true and false — and as many numbers that are no computation
(dates, versions, "HTTP 404", "Q3"). The grounding's SympyGrounder checks them ``--repeat``
times: each time a fresh grounder's SymPy child is warmed first (not timed: a run warms it as it
starts, beside the blind round), then the check of the round is timed as the engine asks for it
(reading the claims, screening, SymPy in the child, judging). Reported: the median and the range.
(2) *The next round's first token.* A teorema run of three voices against the fake provider over
real loopback sockets (first token 0.4 s, 200 tokens/s, the judge alike), with and without the
checks, interleaved, ``--repeat`` times each: from the blind round's last contribution stored to
the debate round's first streamed token, median. The difference between the two is what the
checks add; it is set beside the blind round's check step's own time in the same runs, the whole
step as the engine runs it (reading, SymPy, the ledger, its events). The machine is shared with
other work: figures move between runs, and medians of interleaved runs are what to compare.

Usage: python bench/bench_checks.py [--repeat 15] [--corpus]
"""

import argparse
import asyncio
import statistics
import time
from dataclasses import replace

from standalone import django_setup

django_setup()

from debates.engine import run as engine  # noqa: E402
from debates.engine.checks import Said  # noqa: E402
from debates.engine.events import ContributionChunk, ContributionFinished, Event, RoundStarted  # noqa: E402
from debates.engine.run import run  # noqa: E402
from debates.engine.spec import RunSpec, Seat  # noqa: E402
from debates.engine.vocabulary import Protocol, StepKind  # noqa: E402
from debates.grounding import SympyGrounder  # noqa: E402
from debates.grounding.sandbox import Sandbox  # noqa: E402
from debates.providers.base import Endpoint, Voice  # noqa: E402
from tests.fakes import judge  # noqa: E402
from tests.fakes.answers import SYNTHESIS  # noqa: E402
from tests.fakes.provider_server import FakeProviderServer, Script  # noqa: E402
from tests.grounding import corpus  # noqa: E402

PROSE = "The load profile decides it; we shipped 3.12 on 2024-03-15 and saw HTTP 404 spikes in Q3. " * 4
ANSWERS = [
    (
        "Panelist A",
        [
            "2^10 = 1000, so a 1 KiB page holds 1000 bytes",
            "12 % of 250 is 40 cold pages",
            "From 80 to 100 is a 25% increase",
            "1 day = 86,400 seconds of retention",
        ],
    ),
    (
        "Panelist B",
        [
            "2^20 = 1,048,576 keys fit in the index",
            "30 is 12% of 250",
            "100 is 25% less than 125",
            "1 GB = 1000 MB on the invoice",
        ],
    ),
    (
        "Panelist C",
        [
            "Growing at 10% a year for 5 years gives 1.61x",
            "At 7% a year the data doubles in about 10 years",
            "3 × 8 GB = 24 GB of cache",
            "100 °C = 212 °F, irrelevant here",
        ],
    ),
    (
        "Panelist D",
        [
            "15% of 1.2M users is 180k users",
            "365 * 24 = 8760 hours a year",
            "1 mile ≈ 1.6 km between the sites",
            "(a+b)^2 = a^2 + b^2 for the two shards",
        ],
    ),
    (
        "Panelist E",
        [
            "10**3 is 1,000 requests",
            "Going from 100 to 80 is a 25% decrease",
            "1 KiB = 1024 bytes",
            "2 GB + 512 MB = 2.5 GB",
        ],
    ),
]


def said() -> list[Said]:
    """The round as the engine hands it to the grounder: each claim, then each contribution's prose."""
    found: list[Said] = []
    for label, claims in ANSWERS:
        prefix = label[-1]
        found += [Said(label, 1, f"{prefix}{i}", text) for i, text in enumerate(claims, 1)]
        found.append(Said(label, 1, "", f"{PROSE}\n{' '.join(c + '.' for c in claims[:2])}"))
    return found


async def step_times(repeat: int) -> tuple[list[float], int]:
    times, found = [], 0
    round_ = said()
    for _ in range(repeat):
        sandbox = Sandbox()
        await sandbox.child()  # warm, as a running process's is by its first check
        started = time.perf_counter()
        checks = await SympyGrounder(sandbox).check(round_)
        times.append(time.perf_counter() - started)
        found = len(checks)
        await sandbox.close()
    return times, found


# --- the next round's first token ------------------------------------------------------------------

FAMILIES = ("alpha", "beta", "gamma")
WIRES = ("openai", "anthropic", "gemini")


def block(label: str) -> str:
    claims = dict(ANSWERS)[label]
    listed = "\n".join(
        f"{i}. [fact] {c} | confidence: 80% | falsified if: SymPy disagrees" for i, c in enumerate(claims, 1)
    )
    return f"{PROSE}\n\nANSWER: Add read replicas\nCLAIMS:\n{listed}\n"


LATER = "I keep my answer.\n\nCHANGE: none | nothing new\nANSWER: Add read replicas"


def seat(server: FakeProviderServer, index: int) -> Seat:
    wire = WIRES[index]
    base = {"openai": "/v1", "anthropic": "", "gemini": "/v1beta"}[wire]
    limits = {"connect_timeout": 5, "stall_timeout": 30, "total_timeout": 120, "max_retries": 0}
    endpoint = Endpoint(f"{FAMILIES[index]}-provider", wire, server.url + base, "sk-bench", **limits)
    voice = Voice(FAMILIES[index], f"model-{FAMILIES[index]}", endpoint, max_tokens=2000)
    family = FAMILIES[index]
    return Seat(f"p{index + 1}", f"Panelist {'ABC'[index]}", voice, family.title(), family, f"{family}-provider")


def spec_of(server: FakeProviderServer, checks: bool) -> RunSpec:
    moderator = replace(seat(server, 0), key="moderator", label="Moderator")
    moderator = replace(moderator, voice=replace(moderator.voice, model="model-moderator"), family="omega")
    seats = tuple(seat(server, i) for i in range(3))
    return RunSpec("Replicas or a cache?", Protocol.TEOREMA, seats, moderator, force_panel=True, checks=checks)


def script(server: FakeProviderServer) -> None:
    pace = {"first_token_delay": 0.4, "tokens_per_second": 200}
    for family, label in zip(FAMILIES, ("Panelist A", "Panelist B", "Panelist C"), strict=True):
        answer = block(label)
        server.script(
            f"model-{family}", Script(answer=lambda r, a=answer: a if "on your own" in r.prompt else LATER, **pace)
        )
    server.script("model-moderator", Script(answer=SYNTHESIS, **pace))
    server.script_judge(Script(answer=judge.grouping({}), **pace))


class Clock:
    """When the blind round's last contribution was stored and the debate's first words came."""

    def __init__(self) -> None:
        self.answers_done = 0.0
        self.first_debate_token = 0.0
        self.debate = -1  # the debate round's index, once it starts

    async def emit(self, event: Event) -> None:
        match event:
            case ContributionFinished(result=result) if result.kind == StepKind.ANSWER:
                self.answers_done = time.perf_counter()
            case RoundStarted(index=index, kind=StepKind.DEBATE):
                self.debate = index
            case ContributionChunk(round=index) if index == self.debate and not self.first_debate_token:
                self.first_debate_token = time.perf_counter()


SPENT: list[float] = []  # the check steps' own times, whole (reading, SymPy, the ledger, the events)
CHECK_STEP = engine.ACTIONS[StepKind.CHECK]


async def timed_check(context, step) -> None:
    started = time.perf_counter()
    try:
        return await CHECK_STEP(context, step)
    finally:
        SPENT.append(time.perf_counter() - started)


engine.ACTIONS[StepKind.CHECK] = timed_check


async def gap(server: FakeProviderServer, checks: bool) -> tuple[float, float]:
    """(blind round stored → debate's first token, the blind round's check step's own time) of one run, in seconds."""
    clock, sandbox = Clock(), Sandbox()
    grounder = SympyGrounder(sandbox)
    grounder.warm()  # as the run starts: its SymPy loads beside the blind round
    SPENT.clear()
    try:
        finished = await run(spec_of(server, checks), clock, grounder=grounder if checks else None)
    finally:
        await sandbox.close()
    assert finished.status == "done", finished.error
    return clock.first_debate_token - clock.answers_done, SPENT[0] if SPENT else 0.0


async def corpus_figures() -> None:
    sandbox = Sandbox()
    rows = corpus.rows()
    try:
        started = time.perf_counter()
        checked = await corpus.checked(SympyGrounder(sandbox, budget_s=120), rows)
        spent = time.perf_counter() - started
    finally:
        await sandbox.close()
    found = corpus.figures(rows, checked)
    print(f"The corpus of computations as models write them ({corpus.CORPUS.name}), one round, {spent:.1f} s:")
    print("\n".join(f"  {line}" for line in found.lines()))
    for text in found.false_marks + found.wrong_values:
        print(f"  ! {text}")


async def main(repeat: int, only_corpus: bool) -> None:
    await corpus_figures()
    if only_corpus:
        return
    print()
    times, found = await step_times(repeat)
    ms = sorted(t * 1000 for t in times)
    print(f"The checking step, one round of 5 contributions stating 20 computations ({found} checks), {repeat} runs:")
    print(f"  median {statistics.median(ms):.1f} ms  (min {ms[0]:.1f}, max {ms[-1]:.1f}); target ≤ 200 ms")

    server = FakeProviderServer()
    server.start()
    try:
        script(server)
        gaps: dict[bool, list[float]] = {False: [], True: []}
        spent: list[float] = []
        for _ in range(repeat):
            for checks in (False, True):  # interleaved, so drift hits both alike
                seconds, own = await gap(server, checks)
                gaps[checks].append(seconds)
                if checks:
                    spent.append(own)
    finally:
        server.stop()
    off, on = statistics.median(gaps[False]) * 1000, statistics.median(gaps[True]) * 1000
    own = statistics.median(spent) * 1000
    print(f"\nBlind round stored → the debate's first token, teorema, 3 voices, fake providers, {repeat} runs each:")
    print(f"  without checks {off:.0f} ms, with checks {on:.0f} ms: the checks add {on - off:.0f} ms")
    print(f"  the blind round's check step, whole, in those runs: median {own:.0f} ms")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--corpus", action="store_true", help="the corpus figures only, not the timings")
    arguments = parser.parse_args()
    asyncio.run(main(arguments.repeat, arguments.corpus))
