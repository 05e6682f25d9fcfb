"""A provider that accepts the connection and never answers: how long the question waits, with and
without a deadline.

Method. Three voices of three families and a moderator on fake providers over real loopback
sockets (the OpenAI wire): two voices answer (0.4 s to the first token, 200 tokens/s), the third
accepts the request and never sends a byte. The providers keep the defaults a new provider gets
(stall timeout 60 s, 2 retries) unless ``--stall`` / ``--retries`` say otherwise. Each run goes
through the bare engine (an in-memory sink), teorema protocol, debate always, under ``strict``
and under ``degrade``: once without a deadline, then ``--repeat`` times per deadline. Printed per
case: the median wall time from the start of the run to its end, how it ended, and the calls the
deadline stopped (cancelled) with the rounds it left out.

Usage: python bench/bench_deadline.py [--deadlines 20,40] [--repeat 3] [--stall 60] [--retries 2] [--no-baseline]
"""

import argparse
import asyncio
import statistics
import time

from standalone import django_setup

django_setup()

from debates.engine.events import ContributionFinished, Event, PanelChanged  # noqa: E402
from debates.engine.run import run  # noqa: E402
from debates.engine.spec import RunSpec, Seat  # noqa: E402
from debates.engine.vocabulary import FailurePolicy, Outcome, Protocol  # noqa: E402
from debates.providers.base import Endpoint, Voice  # noqa: E402
from tests.fakes.answers import SYNTHESIS  # noqa: E402
from tests.fakes.provider_server import FakeProviderServer, Script  # noqa: E402

ANSWER = ("The load profile decides it. " * 25) + "\n\nANSWER: Add read replicas\n"
PACE = {"first_token_delay": 0.4, "tokens_per_second": 200}


class Sink:
    """Keeps what the numbers need: the stopped calls and the last panel report."""

    def __init__(self) -> None:
        self.cancelled = 0
        self.report: dict = {}

    async def emit(self, event: Event) -> None:
        if isinstance(event, ContributionFinished) and event.result.status == Outcome.CANCELLED:
            self.cancelled += 1
        elif isinstance(event, PanelChanged):
            self.report = event.panel_run


def seat(key: str, label: str, family: str, server: FakeProviderServer, stall: float, retries: int) -> Seat:
    endpoint = Endpoint(
        name=f"{family}-provider",
        wire="openai",
        base_url=server.base_url("openai"),
        api_key="sk-bench",
        stall_timeout=stall,
        max_retries=retries,
    )
    voice = Voice(name=family, model=f"model-{family}", endpoint=endpoint, max_tokens=800)
    return Seat(key, label, voice, family.title(), family, f"{family}-provider")


async def once(server: FakeProviderServer, policy: FailurePolicy, deadline: float | None, args) -> tuple:
    voices = tuple(
        seat(f"p{i}", f"Panelist {chr(64 + i)}", family, server, args.stall, args.retries)
        for i, family in enumerate(("alpha", "beta", "gamma"), 1)
    )
    spec = RunSpec(
        question="Read replicas or sharding for our reporting load?",
        protocol=Protocol.TEOREMA,
        seats=voices,
        moderator=seat("moderator", "Moderator", "omega", server, args.stall, args.retries),
        failure_policy=policy,
        deadline=deadline,
    )
    sink = Sink()
    began = time.perf_counter()
    finished = await run(spec, sink)
    left_out = sum("did not run" in note for note in sink.report.get("degradations", []))
    return time.perf_counter() - began, finished.status, sink.cancelled, left_out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deadlines", default="20,40")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--stall", type=float, default=60.0)
    parser.add_argument("--retries", type=int, default=2)
    parser.add_argument("--no-baseline", action="store_true", help="skip the runs without a deadline (minutes)")
    args = parser.parse_args()
    cases: list[float | None] = [None] if not args.no_baseline else []
    cases += [float(d) for d in args.deadlines.split(",")]
    with FakeProviderServer() as server:
        print("| policy | deadline | wall time (median of n) | ended | calls stopped | rounds left out |")
        print("|---|---|---|---|---|---|")
        for deadline in cases:
            for policy in (FailurePolicy.STRICT, FailurePolicy.DEGRADE):
                runs = []
                for _ in range(1 if deadline is None else args.repeat):
                    server.reset()
                    for family in ("alpha", "beta"):
                        server.script(f"model-{family}", Script(answer=ANSWER, **PACE))
                    server.script("model-gamma", Script(fault="hang"))
                    server.script("model-omega", Script(answer=SYNTHESIS, **PACE))
                    runs.append(asyncio.run(once(server, policy, deadline, args)))
                wall = statistics.median(r[0] for r in runs)
                ended, stopped, left_out = runs[-1][1:]
                shown = "none" if deadline is None else f"{deadline:g} s"
                print(f"| {policy} | {shown} | {wall:.1f} s (n={len(runs)}) | {ended} | {stopped} | {left_out} |")


if __name__ == "__main__":
    main()
