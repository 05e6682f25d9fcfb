"""Teorema against karpathy/llm-council's 3-stage flow, end to end, on the same fake provider.

Method. The fake provider runs in a process of its own (bench/fakeproc.py) and answers every
call with unique words (<model>.<request>.w<i>) after a prefix naming the question's subject
(the moderator's: a synthesis' headings and closing block, so its verdict is read), noting when
each request arrived and each word was written (time.time(), the clock this process stamps
websocket arrivals with). Fixed paces, as in bench_engine.py: voice i's first token after 1.0, 1.25,
1.5, 1.75, 2.0 s; the moderator (Teorema) and the chairman (llm-council) the same model, 1.0 s;
every answer 40 words at 200 tokens/s, streamed or, when not streamed, sent whole once
generated (first token + words / rate).

- Teorema: the app as `make run` starts it (one Daphne, runs in its process, SQLite, in-memory
  channel layer), a teorema question through the JSON API (force_panel, debate "always": blind
  answers, one debate round, the moderator's synthesis; 2N + 1 streamed calls), watched by one
  signed-in websocket client in this process until the server closes it (the run is over); a
  run counts as finished when the API then says "done" with a verdict.
- llm-council: its flow, in this process: stage 1, every model answers the question; stage 2,
  every model ranks the anonymised answers ("Response A" ...) and the rankings are parsed and
  aggregated; stage 3, the chairman synthesises from both. One non-streaming OpenAI chat
  completion per model per stage, each made by its own `async with httpx.AsyncClient(timeout=120)`,
  a stage's calls gathered (2N + 1 calls). Its backend sends each stage's results to the browser
  as an SSE event once the stage completes; here "first text at the client" is the moment stage
  1's results are in this process: that favours llm-council by the web hop it is spared
  (server -> browser, and the browser's POST that starts it). Left out: the title call it makes
  beside stage 1 on a conversation's first message, and its write of the conversation's JSON file.

Per run: stage k = every panel model's k-th request of the run (in the order they arrived),
then the moderator's/chairman's; a call lasts from its arrival at the fake to its last word
written; critical path = sum over stages of the slowest call; wall = submission -> last
websocket message (Teorema) or the chairman's answer parsed (llm-council); overhead = wall /
critical path; first text = submission -> the first answer word at the websocket (Teorema) or
stage 1's results in hand (llm-council). Where wall - critical path goes: before the first call
arrives, launch skew (a stage's span, first arrival to last word, beyond its slowest call: its
calls not sent together), between stages (a stage's last word -> the next stage's first
arrival), and after the last word to the client.
Repetitions are interleaved (Teorema, llm-council, for each panel size), after one unmeasured
warm-up of each; medians with min-max. The fake, Daphne and this process share the machine's
cores: the load average before and after is printed.

Usage: python bench/bench_council.py [--repeat 5] [--voices 3,5]
"""

import argparse
import asyncio
import contextlib
import json
import os
import re
import statistics
import sys
import tempfile
import time
import urllib.request
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("NO_PROXY", "127.0.0.1,localhost")  # loopback only, even where a proxy is set

from bench.fakeproc import Arrival, FakeProcess, Pace  # noqa: E402
from tests.integration import cluster as deploy  # noqa: E402
from tests.integration.debate import MODERATOR, PANEL, roster_toml  # noqa: E402
from tests.integration.viewer import Viewer, watch  # noqa: E402

VOICES = {"it-alpha": 1.0, "it-beta": 1.25, "it-gamma": 1.5, "it-delta": 1.75, "it-epsilon": 2.0}
WORDS, TOKENS_PER_SECOND, MODERATOR_FIRST_TOKEN = 40, 200.0, 1.0
QUESTION = "Should we add read replicas or shard the database?"
# The gate drops an answer sharing no term with the question: every answer names its subject.
PREFIX = "Add read replicas before sharding the database. "
SYNTHESIS = (
    "## Consensus\nEvery voice would add read replicas before sharding the database.\n\n## Disagreements\nNone.\n\n"
    "## Verdict\nAdd read replicas before sharding the database.\n\n"
    "VERDICT: Add read replicas before sharding the database.\nCONFIDENCE: 0.8\n\n## Reasoning\n"
)
CLOCK = time.time  # the fake's clock (bench/fakeproc.py), and the websocket viewer's
WORD = re.compile(r"it-[a-z]+\.\d+\.w\d+")
PARTS = ("before first call", "launch skew", "between stages", "to the client")


@dataclass(frozen=True)
class Sample:
    flow: str
    voices: int
    wall: float
    critical: float
    first_text: float
    calls: int
    parts: tuple[float, ...]  # where wall - critical goes, in the order of PARTS
    finished: bool

    @property
    def overhead(self) -> float:
        return self.wall / self.critical


def stages(requests: list[Arrival], words: dict[str, float]) -> list[list[tuple[float, float]]]:
    """Each stage's calls as (arrival, last word written), from one run's timings."""
    ends: dict[tuple[str, int], float] = {}
    for word, at in words.items():
        model, number, _ = word.rsplit(".", 2)
        ends[model, int(number)] = max(ends.get((model, int(number)), 0.0), at)
    by_model: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for request in sorted(requests, key=lambda r: r.at):
        by_model[request.model].append((request.at, ends[request.model, request.number]))
    panel = [calls for model, calls in by_model.items() if model != MODERATOR]
    rounds = [[calls[k] for calls in panel if k < len(calls)] for k in range(max(map(len, panel)))]
    return [*rounds, by_model[MODERATOR]]


def sample(flow: str, voices: int, fake: FakeProcess, started: float, ended: float, first: float, ok: bool) -> Sample:
    """The run's figures; ``started`` and ``ended`` on the fake's clock."""
    words, requests, _ = fake.timings()
    steps = stages(requests, words)
    critical = sum(max(end - at for at, end in calls) for calls in steps)
    starts, ends = [min(at for at, _ in calls) for calls in steps], [max(end for _, end in calls) for calls in steps]
    skew = sum(ends) - sum(starts) - critical
    between = sum(starts[k + 1] - ends[k] for k in range(len(steps) - 1))
    before, after = starts[0] - started, ended - ends[-1]
    return Sample(flow, voices, ended - started, critical, first, len(requests), (before, skew, between, after), ok)


# --- Teorema ---------------------------------------------------------------------------------
@contextlib.contextmanager
def teorema(fake: FakeProcess, workdir: Path) -> Iterator[tuple[deploy.Process, deploy.Credentials]]:
    """The single-process app, as bench_scale.py's mode (a) starts it; (web, credentials)."""
    env = deploy.server_env(workdir / "data", "", "") | {"TEOREMA_RUN_IN_PROCESS": "1"}
    env = {k: v for k, v in env.items() if k not in {"DATABASE_URL", "REDIS_URL"}}
    cluster = deploy.Cluster(workdir, env | {"TEOREMA_QUESTIONS_PER_HOUR": "100000"})
    try:
        cluster.manage("migrate", "--no-input")
        (workdir / "roster.toml").write_text(roster_toml(fake, VOICES))
        cluster.manage("roster", "import", str(workdir / "roster.toml"))
        credentials = deploy.create_user(cluster, "bench")
        yield cluster.web("web"), credentials
    finally:
        cluster.stop()


def outcome(web: deploy.Process, credentials: deploy.Credentials, question_id: int) -> bool:
    """Whether the API says the run is done, with a verdict."""
    url = f"http://127.0.0.1:{web.port}/api/questions/{question_id}"
    request = urllib.request.Request(url, headers={"Authorization": f"Bearer {credentials.token}"})
    with deploy.LOOPBACK.open(request, timeout=30) as response:
        question = json.load(response)
    return question["status"] == "done" and bool(question["verdict"])


async def teorema_run(fake: FakeProcess, web, credentials, voices: int, number: int) -> Sample:
    fake.timings()  # cleared
    started = CLOCK()
    text = f"{QUESTION} (bench run {number})"
    fields = {"protocol": "teorema", "voices": list(VOICES)[:voices], "force_panel": True, "debate": "always"}
    question_id = await asyncio.to_thread(deploy.ask, web, credentials, text, PANEL, **fields)
    viewer = await asyncio.wait_for(watch(Viewer(web.port), question_id, credentials.session), 300)
    if not viewer.messages:
        raise RuntimeError(f"the websocket got nothing (close code {viewer.close_code}):\n{web.output()[-3000:]}")
    first = next((at for at, message in viewer.messages if WORD.search(message)), float("nan")) - started
    ok = await asyncio.to_thread(outcome, web, credentials, question_id)
    return sample("teorema", voices, fake, started, viewer.messages[-1][0], first, ok)


# --- llm-council's flow ----------------------------------------------------------------------
async def query_model(url: str, model: str, messages: list[dict]) -> str:
    """One non-streaming chat completion, with a client of its own, as llm-council makes it."""
    headers = {"Authorization": "Bearer sk-fake-council", "Content-Type": "application/json"}
    async with httpx.AsyncClient(timeout=120) as client:
        response = await client.post(url, headers=headers, json={"model": model, "messages": messages})
        response.raise_for_status()
        return response.json()["choices"][0]["message"]["content"]


async def query_models(url: str, models: list[str], messages: list[dict]) -> dict[str, str]:
    answers = await asyncio.gather(*(query_model(url, model, messages) for model in models))
    return dict(zip(models, answers, strict=True))


def parse_ranking(text: str) -> list[str]:
    section = text.split("FINAL RANKING:", 1)[-1]
    return re.findall(r"Response [A-Z]", section)


async def council(url: str, models: list[str], question: str) -> tuple[float, str]:
    """llm-council's three stages; (when stage 1's results were in hand, the final answer)."""
    stage1 = await query_models(url, models, [{"role": "user", "content": question}])
    stage1_done = CLOCK()  # its backend sends them to the browser now
    labels = {f"Response {chr(65 + i)}": model for i, model in enumerate(stage1)}
    answers = "\n\n".join(f"{label}:\n{stage1[model]}" for label, model in labels.items())
    ranking = (
        f"Evaluate these anonymised responses to the question: {question}\n\n{answers}\n\n"
        "Then end with FINAL RANKING: and the responses from best to worst, one per line."
    )
    stage2 = await query_models(url, models, [{"role": "user", "content": ranking}])
    positions: dict[str, list[int]] = defaultdict(list)
    for text in stage2.values():
        for position, label in enumerate(parse_ranking(text), start=1):
            if label in labels:
                positions[labels[label]].append(position)
    aggregate = sorted((sum(p) / len(p), model) for model, p in positions.items())
    responses = "\n\n".join(f"Model: {model}\nResponse: {text}" for model, text in stage1.items())
    rankings = "\n\n".join(f"Model: {model}\nRanking: {text}" for model, text in stage2.items())
    chairman = (
        f"You are the Chairman of an LLM Council. Original question: {question}\n\nSTAGE 1:\n{responses}"
        f"\n\nSTAGE 2:\n{rankings}\n\nAggregate: {aggregate}\n\nSynthesise one final answer."
    )
    return stage1_done, await query_model(url, MODERATOR, [{"role": "user", "content": chairman}])


async def council_run(fake: FakeProcess, voices: int, number: int) -> Sample:
    fake.timings()  # cleared
    started = CLOCK()
    url = f"{fake.base_url('openai')}/chat/completions"
    stage1_done, final = await council(url, list(VOICES)[:voices], f"{QUESTION} (bench run {number})")
    ended = CLOCK()
    return sample("llm-council", voices, fake, started, ended, stage1_done - started, bool(WORD.search(final)))


# --- report ----------------------------------------------------------------------------------
def spread(values: list[float], unit: str = "", scale: float = 1.0, digits: int = 3) -> str:
    low, mid, high = min(values) * scale, statistics.median(values) * scale, max(values) * scale
    return f"{mid:.{digits}f}{unit} ({low:.{digits}f}–{high:.{digits}f})"


def line(s: Sample) -> str:
    parts = ", ".join(f"{name} {ms * 1000:.0f}" for name, ms in zip(PARTS, s.parts, strict=True))
    return (
        f"{s.voices} voices {s.flow:11} wall {s.wall:.3f} s  critical {s.critical:.3f} s  "
        f"overhead {s.overhead:.3f}  first text {s.first_text:.3f} s  calls {s.calls}"
        f"{'' if s.finished else '  NOT FINISHED'}  [ms: {parts}]"
    )


def summary(samples: list[Sample]) -> None:
    print("\nMedians (min–max) over the repetitions:")
    print(
        f"{'voices':>6}  {'flow':11}  {'wall (critical path)':20}  {'overhead ×':22}  {'wall − critical':24}  "
        f"{'first text':24}  finished"
    )
    for key in dict.fromkeys((s.voices, s.flow) for s in samples):
        runs = [s for s in samples if (s.voices, s.flow) == key]
        extra = [s.wall - s.critical for s in runs]
        wall, critical = statistics.median(s.wall for s in runs), statistics.median(s.critical for s in runs)
        times = f"{wall:.3f} s ({critical:.3f} s)"
        print(
            f"{key[0]:>6}  {key[1]:11}  {times:20}  {spread([s.overhead for s in runs]):22}  "
            f"{spread(extra, ' ms', 1000, 0):24}  {spread([s.first_text for s in runs], ' s'):24}  "
            f"{sum(s.finished for s in runs)}/{len(runs)}"
        )
        parts = ", ".join(f"{n} {statistics.median(s.parts[i] for s in runs) * 1000:.0f}" for i, n in enumerate(PARTS))
        print(f"{'':>6}  {'':11}  where wall − critical goes (ms, medians): {parts}")


async def bench(args: argparse.Namespace, fake: FakeProcess, web, credentials) -> list[Sample]:
    await teorema_run(fake, web, credentials, min(args.voices), 0)  # warm-up: first requests, imports
    await council_run(fake, min(args.voices), 0)
    samples, number = [], 0
    for repetition in range(1, args.repeat + 1):
        for voices in args.voices:
            for flow in ("teorema", "llm-council"):
                number += 1
                if flow == "teorema":
                    run = await teorema_run(fake, web, credentials, voices, number)
                else:
                    run = await council_run(fake, voices, number)
                samples.append(run)
                print(f"  rep {repetition}  {line(run)}", flush=True)
    return samples


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=5, help="measured runs of each flow per panel size")
    parser.add_argument("--voices", default="3,5", help="panel sizes, comma-separated (2 to 5)")
    args = parser.parse_args()
    args.voices = [int(n) for n in args.voices.split(",")]
    if not all(2 <= n <= len(VOICES) for n in args.voices):
        parser.error(f"--voices: each panel size between 2 and {len(VOICES)}")
    print(__doc__.split("Usage:")[0])
    paces = {model: Pace(first, TOKENS_PER_SECOND, WORDS) for model, first in VOICES.items()}
    paces[MODERATOR] = Pace(MODERATOR_FIRST_TOKEN, TOKENS_PER_SECOND, WORDS, prefix=SYNTHESIS)
    python = sys.version.split()[0]
    print(f"Settings: --repeat {args.repeat}, voices {args.voices}, {os.cpu_count()} CPUs, Python {python}")
    print(f"Load average before: {Path('/proc/loadavg').read_text().strip()}")
    with (
        FakeProcess(paces, prefix=PREFIX) as fake,
        tempfile.TemporaryDirectory(prefix="teorema-bench-council-") as workdir,
        teorema(fake, Path(workdir)) as (web, credentials),
    ):
        samples = asyncio.run(bench(args, fake, web, credentials))
    print(f"Load average after:  {Path('/proc/loadavg').read_text().strip()}")
    summary(samples)


if __name__ == "__main__":
    main()
