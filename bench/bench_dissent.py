"""Debate always, or only where the panel splits: calls, tokens and wall time per question.

Method. Two sets of questions, each with scripted blind answers for three voices of three model
families (closing blocks with an ANSWER line and claims, as the prompts ask): some where the
panel agrees, some 2–1 splits, some three-way splits. In the *same words* set, voices that agree
write the same answer line; in the *other words* set they word it as real models do ("Add read
replicas" / "Read replicas first" / "Scale reads with replicas"), and the panel's judge (on the
moderator's model) groups the answers by meaning, as a model that reads them would. Fake
providers over real loopback sockets answer with a fixed time to first token (0.4 s) and 200
tokens/s, on the three wire protocols; the judge answers at the same pace. Each question runs
through the bare engine (an in-memory sink) with ``debate = always`` and ``debate =
on_dissent``, the two interleaved, ``--repeat`` times; calls (the judge's among them) and tokens
are counted from the contributions, wall time is the median. Protocols: teorema (one debate
round) and adversarial (critique + final positions; its critique always runs, narrowed to the
contested claims). Prices: $1 / $2 per million tokens in / out for every voice and the judge.

``--wording-only`` puts the judge on a small model, which the engine never asks: answers are then
grouped by their words alone, as they were before the judge (the other-words set then saves nothing).

Usage: python bench/bench_dissent.py [--repeat 3] [--protocol teorema|adversarial|both] [--wording-only]
"""

import argparse
import asyncio
import statistics
import time
from dataclasses import dataclass, replace
from decimal import Decimal

from standalone import django_setup

django_setup()

from debates.engine.events import ContributionFinished, Event, PanelChanged  # noqa: E402
from debates.engine.run import run  # noqa: E402
from debates.engine.spec import RunSpec, Seat  # noqa: E402
from debates.engine.vocabulary import DebateMode, Protocol, StepKind  # noqa: E402
from debates.providers.base import Endpoint, Voice  # noqa: E402
from tests.fakes import judge  # noqa: E402
from tests.fakes.answers import SYNTHESIS  # noqa: E402
from tests.fakes.provider_server import FakeProviderServer, Script  # noqa: E402

FAMILIES = ("alpha", "beta", "gamma")
WIRES = ("openai", "anthropic", "gemini")
REASONING = "The load profile decides it. " * 25  # about 150 words of reasoning before the block


def block(answer: str, *claims: str) -> str:
    listed = "\n".join(
        f"{i}. [fact] {c} | confidence: 80% | falsified if: the metrics say otherwise" for i, c in enumerate(claims, 1)
    )
    return f"{REASONING}\n\nANSWER: {answer}\nCLAIMS:\n{listed}\n"


REPLICAS = block("Add read replicas", "Reads are 90% of the queries", "Replicas take the read load")
SHARD = block("Shard the database", "Reads are 90% of the queries", "The dataset outgrows one node this year")
CACHE = block("Add a cache in front", "Reads repeat within minutes", "A cache is cheaper than replicas")
YES = block("Yes", "The migration is reversible", "The window is long enough")
NO = block("No", "The migration locks the table", "The window is too short")

# The same answers in the words other models use for them.
REPLICAS_2 = block("Read replicas first", "Most queries are reads", "Replicas absorb the reporting load")
REPLICAS_3 = block("Scale reads with replicas before anything else", "The workload is read-heavy")
YES_2 = block("Yes, go ahead", "It can be rolled back", "The maintenance window suffices")
YES_3 = block("Migrate: it is safe", "A rollback script exists")
NO_2 = block("Do not migrate now", "The table lock blocks writes", "The window cannot fit it")
NO_3 = block("Postpone the migration", "Writes would stall during the lock")
CACHE_2 = block("Put a cache in front of the database", "The same reports repeat", "Caching costs less")
SHARD_2 = block("Partition the data across nodes", "One node will not hold next year's data")
MEANING = {
    "Add read replicas": "replicas",
    "Read replicas first": "replicas",
    "Scale reads with replicas before anything else": "replicas",
    "Yes": "yes",
    "Yes, go ahead": "yes",
    "Migrate: it is safe": "yes",
    "No": "no",
    "Do not migrate now": "no",
    "Postpone the migration": "no",
    "Add a cache in front": "cache",
    "Put a cache in front of the database": "cache",
    "Shard the database": "shard",
    "Partition the data across nodes": "shard",
}

# (set, name, the three blind answers)
QUESTIONS = [
    ("same words", "agree: replicas", (REPLICAS, REPLICAS, REPLICAS)),
    ("same words", "agree: yes", (YES, YES, YES)),
    ("same words", "agree: cache", (CACHE, CACHE, CACHE)),
    ("same words", "agree: no", (NO, NO, NO)),
    ("same words", "split 2-1", (REPLICAS, REPLICAS, SHARD)),
    ("same words", "split 2-1 yes/no", (YES, NO, YES)),
    ("same words", "three-way", (REPLICAS, SHARD, CACHE)),
    ("same words", "split 1-2", (SHARD, REPLICAS, SHARD)),
    ("other words", "agree: replicas", (REPLICAS, REPLICAS_2, REPLICAS_3)),
    ("other words", "agree: yes", (YES, YES_2, YES_3)),
    ("other words", "agree: cache", (CACHE, CACHE_2, CACHE)),
    ("other words", "agree: no", (NO, NO_2, NO_3)),
    ("other words", "split 2-1", (REPLICAS_2, REPLICAS_3, SHARD_2)),
    ("other words", "split 2-1 yes/no", (YES_2, NO_3, YES_3)),
    ("other words", "three-way", (REPLICAS_3, SHARD_2, CACHE_2)),
    ("other words", "split 1-2", (SHARD, REPLICAS_2, SHARD_2)),
]
LATER = (
    "I checked the others' claims.\n\nON CLAIMS:\n- A1 confirm | matches the metrics\n"
    'ATTACKS:\n- B2 [weak evidence] "outgrows" | evidence: growth is 15%\n'
    "REPLIES:\n- A1 defended | the metrics hold\nCHANGE: none | nothing new\nANSWER: Add read replicas\n"
) + REASONING


@dataclass
class Tally:
    calls: int = 0
    judge: int = 0  # the judge's calls among them
    tokens: int = 0
    cost: Decimal = Decimal("0")
    skipped: bool = False

    def add(self, other: "Tally") -> None:
        self.calls += other.calls
        self.judge += other.judge
        self.tokens += other.tokens
        self.cost += other.cost


class CountingSink:
    """Counts what was called; keeps nothing else."""

    def __init__(self) -> None:
        self.tally = Tally()

    async def emit(self, event: Event) -> None:
        if isinstance(event, ContributionFinished) and event.result.is_call:
            self.tally.calls += 1
            self.tally.judge += event.result.kind == StepKind.AGREEMENT
            self.tally.tokens += event.result.tokens_in + event.result.tokens_out
            self.tally.cost += event.result.cost
        elif isinstance(event, PanelChanged) and "debate" in event.panel_run:
            self.tally.skipped = event.panel_run["debate"]["skipped"]


def seat(server: FakeProviderServer, index: int) -> Seat:
    wire = WIRES[index]
    base = {"openai": "/v1", "anthropic": "", "gemini": "/v1beta"}[wire]
    limits = {"connect_timeout": 5, "stall_timeout": 30, "total_timeout": 120, "max_retries": 0}
    endpoint = Endpoint(f"{FAMILIES[index]}-provider", wire, server.url + base, "sk-bench", **limits)
    prices = {"price_in": Decimal("1"), "price_out": Decimal("2")}
    voice = Voice(FAMILIES[index], f"model-{FAMILIES[index]}", endpoint, max_tokens=2000, **prices)
    family = FAMILIES[index]
    return Seat(f"p{index + 1}", f"Panelist {'ABC'[index]}", voice, family.title(), family, f"{family}-provider")


def spec_of(server: FakeProviderServer, protocol: Protocol, mode: DebateMode, wording_only: bool) -> RunSpec:
    moderator = replace(seat(server, 0), key="moderator", label="Moderator")
    moderator = replace(moderator, voice=replace(moderator.voice, model="model-moderator"), family="omega")
    seats = tuple(seat(server, i) for i in range(3))
    question = "Read replicas or sharding for our reporting load?"
    small = replace(moderator, key="judge", label="Judge", voice=replace(moderator.voice, model="judge-0.5b"))
    judge = small if wording_only else None  # the engine never asks a judge on a small model
    return RunSpec(question, protocol, seats, moderator, force_panel=True, debate=mode, judge=judge)


def script(server: FakeProviderServer, answers: tuple[str, str, str]) -> None:
    def voice(answer: str):
        return lambda r: answer if "on your own" in r.prompt else LATER

    pace = {"first_token_delay": 0.4, "tokens_per_second": 200}
    for family, answer in zip(FAMILIES, answers, strict=True):
        server.script(f"model-{family}", Script(answer=voice(answer), **pace))
    server.script("model-moderator", Script(answer=SYNTHESIS, **pace))
    server.script_judge(Script(answer=judge.grouping(MEANING), **pace))


async def once(
    server: FakeProviderServer, protocol: Protocol, mode: DebateMode, wording_only: bool
) -> tuple[Tally, float]:
    sink = CountingSink()
    started = time.perf_counter()
    finished = await run(spec_of(server, protocol, mode, wording_only), sink)
    assert finished.status == "done", finished.error
    return sink.tally, time.perf_counter() - started


HEAD = f"{'question':<18} {'calls':>11} {'judge':>7} {'tokens':>15} {'cost $':>17} {'wall s':>13}  debate"
UNDER = f"{'':<18} {'alw':>5} {'dis':>5} {'a':>3} {'d':>3} {'alw':>7} {'dis':>7} {'alw':>8} {'dis':>8}" + (
    f" {'alw':>6} {'dis':>6}"
)


def row(name: str, a: Tally, d: Tally, walls: tuple[float, float], debate: str = "") -> str:
    return (
        f"{name:<18} {a.calls:>5} {d.calls:>5} {a.judge:>3} {d.judge:>3} {a.tokens:>7} {d.tokens:>7} "
        f"{a.cost:>8.5f} {d.cost:>8.5f} {walls[0]:>6.2f} {walls[1]:>6.2f}  {debate}"
    )


async def main(repeat: int, protocols: list[Protocol], wording_only: bool) -> None:
    server = FakeProviderServer()
    server.start()
    try:
        for protocol in protocols:
            for words in dict.fromkeys(q[0] for q in QUESTIONS):
                how = "grouped by wording only" if wording_only else "grouped by the judge"
                print(f"\n{protocol}, agreeing voices in {words}, {how} — {repeat} runs per question and mode")
                print(HEAD)
                print(UNDER)
                totals = {m: Tally() for m in DebateMode}
                wall_totals = {m: 0.0 for m in DebateMode}
                for _set, name, answers in (q for q in QUESTIONS if q[0] == words):
                    script(server, answers)
                    walls: dict[DebateMode, list[float]] = {m: [] for m in DebateMode}
                    tallies: dict[DebateMode, Tally] = {}
                    for _ in range(repeat):
                        for mode in DebateMode:  # interleaved, so drift hits both alike
                            tallies[mode], wall = await once(server, protocol, mode, wording_only)
                            walls[mode].append(wall)
                    medians = {m: statistics.median(walls[m]) for m in DebateMode}
                    for mode, tally in tallies.items():
                        totals[mode].add(tally)
                        wall_totals[mode] += medians[mode]
                    a, d = tallies[DebateMode.ALWAYS], tallies[DebateMode.ON_DISSENT]
                    debate = "skipped" if d.skipped else "contested claims only"
                    print(row(name, a, d, (medians[DebateMode.ALWAYS], medians[DebateMode.ON_DISSENT]), debate))
                a, d = totals[DebateMode.ALWAYS], totals[DebateMode.ON_DISSENT]
                print(row("total", a, d, (wall_totals[DebateMode.ALWAYS], wall_totals[DebateMode.ON_DISSENT])))
                print(
                    f"saved by on_dissent, net of every judge call: {a.calls - d.calls} calls, "
                    f"{a.tokens - d.tokens} tokens, ${a.cost - d.cost:.5f} "
                    f"({(a.calls - d.calls) / a.calls:.0%} of the calls, {(a.cost - d.cost) / a.cost:.0%} of the cost)"
                )
    finally:
        server.stop()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--protocol", choices=["teorema", "adversarial", "both"], default="both")
    parser.add_argument("--wording-only", action="store_true", help="no judge: answers grouped by their words")
    args = parser.parse_args()
    chosen = [Protocol.TEOREMA, Protocol.ADVERSARIAL] if args.protocol == "both" else [Protocol(args.protocol)]
    asyncio.run(main(args.repeat, chosen, args.wording_only))
