"""Engine benchmarks: orchestration overhead against the critical path, and what a vote catches.

1. Overhead. Fake providers with fixed latencies (time to first token + tokens per second) answer
   a teorema run of 3 and 5 voices over real loopback sockets. The critical path is the sum over
   rounds of the slowest call of that round, as measured by the engine's own per-vote latency;
   the overhead is (wall time from start to the synthesis - critical path) / critical path.
   Measured for the bare engine (in-memory sink) and for the full Django path (runs.execute:
   recorder writing SQLite rows + live sink broadcasting over the in-memory channel layer).
   Median of --repeat runs.

2. Vote simulation. A labelled set of --items questions with --classes possible answers; three
   simulated models with independent error rates plus a shared "hard item" rate on which all
   models that err pick the same wrong answer (correlated errors, the case that defeats voting).
   Each model's answer goes through consensus.evaluate exactly as a run's votes do. Reported: of
   the errors a single model makes, how many the 3-model consensus corrects (right answer
   reached), flags (no consensus: escalated) or lets through (wrong answer reached).

Usage: python bench/bench_engine.py [--repeat 5] [--items 500] [--seed 7]
"""

import argparse
import asyncio
import random
import statistics
import time

from standalone import django_setup

django_setup()

from asgiref.sync import sync_to_async  # noqa: E402
from django.core.management import call_command  # noqa: E402

from debates.engine import consensus  # noqa: E402
from debates.engine.events import ContributionFinished  # noqa: E402
from debates.engine.reading.ballot import Ballot  # noqa: E402
from debates.engine.run import run  # noqa: E402
from debates.engine.spec import RunSpec, Seat  # noqa: E402
from debates.engine.vocabulary import Criticality, Method, Protocol  # noqa: E402
from debates.models import Contribution  # noqa: E402
from debates.runs import execute  # noqa: E402
from tests.fakes.answers import SYNTHESIS  # noqa: E402
from tests.fakes.provider_server import FakeProviderServer, Script  # noqa: E402
from tests.fakes.roster import make_panel, make_question  # noqa: E402

LATENCIES = [1.0, 1.25, 1.5, 1.75, 2.0]  # time to first token per voice, seconds (real APIs: 1-20 s)
WORDS, TOKENS_PER_SECOND = 40, 200


class Latencies:
    """A sink that keeps only what the critical path needs."""

    def __init__(self) -> None:
        self.by_round: dict[int, list[int]] = {}

    async def emit(self, event) -> None:
        if isinstance(event, ContributionFinished):
            self.by_round.setdefault(event.result.round, []).append(event.result.latency_ms)

    def critical_path(self) -> float:
        return sum(max(values) for values in self.by_round.values()) / 1000


def script(server: FakeProviderServer, voices: int) -> list[str]:
    models = [f"bench-{i}" for i in range(voices)]
    answer = " ".join(["replicas"] * WORDS)
    for model, ttft in zip(models, LATENCIES, strict=False):
        server.script(model, Script(answer=answer, first_token_delay=ttft, tokens_per_second=TOKENS_PER_SECOND))
    server.script("bench-moderator", Script(answer=SYNTHESIS, first_token_delay=0.3, tokens_per_second=200))
    return models


def spec_for(server: FakeProviderServer, models: list[str]) -> RunSpec:
    def seat(key: str, label: str, model: str) -> Seat:
        return Seat(key, label, server.voice("openai", model), model, model, "fake", Method.NONE)

    seats = tuple(seat(f"p{i + 1}", f"Panelist {chr(65 + i)}", m) for i, m in enumerate(models))
    return RunSpec(
        question="Replicas or sharding?",
        protocol=Protocol.TEOREMA,
        seats=seats,
        moderator=seat("moderator", "Moderator", "bench-moderator"),
    )


async def bare_engine(server: FakeProviderServer, voices: int) -> tuple[float, float]:
    sink = Latencies()
    started = time.perf_counter()
    await run(spec_for(server, script(server, voices)), sink)
    return time.perf_counter() - started, sink.critical_path()


async def django_path(server: FakeProviderServer, voices: int) -> tuple[float, float]:
    models = script(server, voices)
    panel = await sync_to_async(make_panel)(server, models=models, moderator="bench-moderator")
    question = await sync_to_async(make_question)(panel)
    started = time.perf_counter()
    await execute.execute(question.pk)
    wall = time.perf_counter() - started
    by_round: dict[int, int] = {}
    async for vote in Contribution.objects.filter(round__question=question).select_related("round"):
        by_round[vote.round.index] = max(by_round.get(vote.round.index, 0), vote.latency_ms)
    return wall, sum(by_round.values()) / 1000


async def overhead(repeat: int) -> None:
    print("1. Orchestration overhead vs the critical path (teorema, fixed-latency fake providers)")
    print(f"   latencies (first token) {LATENCIES} s, {WORDS} tokens at {TOKENS_PER_SECOND} tok/s, median of {repeat}")
    with FakeProviderServer() as server:
        for name, measure in (("bare engine", bare_engine), ("execute (SQLite + live)", django_path)):
            for voices in (3, 5):
                samples, absolute = [], []
                for _ in range(repeat):
                    wall, critical = await measure(server, voices)
                    samples.append((wall - critical) / critical)
                    absolute.append((wall - critical) * 1000)
                print(
                    f"   {name:30} {voices} voices: overhead median {statistics.median(samples):6.2%} "
                    f"= {statistics.median(absolute):4.0f} ms per run (min {min(samples):.2%}, "
                    f"max {max(samples):.2%})"
                )


def simulate_votes(items: int, classes: int, seed: int) -> None:
    error_rates, hard_rate = (0.10, 0.15, 0.20), 0.05
    print(
        f"\n2. Vote simulation: {items} labelled items, {classes} classes, error rates {error_rates}, "
        f"shared hard items {hard_rate:.0%} (correlated errors)"
    )
    labels = [f"class {i}" for i in range(classes)]
    for criticality in Criticality:
        rng = random.Random(seed)  # the same items and answers for every threshold
        single_errors = corrected = flagged = missed = 0
        for _ in range(items):
            truth = rng.choice(labels)
            wrong = rng.choice([label for label in labels if label != truth])
            hard = rng.random() < hard_rate
            answers = []
            for rate in error_rates:
                errs = rng.random() < (0.7 if hard else rate)
                answers.append((wrong if hard else rng.choice([x for x in labels if x != truth])) if errs else truth)
            ballots = [Ballot(f"Panelist {chr(65 + i)}", a, 0.8, "") for i, a in enumerate(answers)]
            result = consensus.evaluate(ballots, criticality, 85)
            for answer in answers:  # every single-model error, as if that model had been alone
                if answer == truth:
                    continue
                single_errors += 1
                if not result.reached:
                    flagged += 1
                elif result.decision == truth:
                    corrected += 1
                else:
                    missed += 1
        caught = corrected + flagged
        print(
            f"   {criticality:6} threshold {consensus.THRESHOLDS[criticality]}: of {single_errors} single-model "
            f"errors, consensus corrected {corrected / single_errors:5.1%}, flagged {flagged / single_errors:5.1%}, "
            f"let through {missed / single_errors:5.1%} -> caught {caught / single_errors:5.1%}"
        )
    print(
        "   (a consensus catches only the errors its models do not share; with 3 voices, a "
        "4/5 threshold needs unanimity, so 'high' flags every disagreement)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--items", type=int, default=500)
    parser.add_argument("--classes", type=int, default=4)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    call_command("migrate", verbosity=0)
    asyncio.run(overhead(args.repeat))
    simulate_votes(args.items, args.classes, args.seed)


if __name__ == "__main__":
    main()
