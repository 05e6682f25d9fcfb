"""Provider layer overhead, measured against doing the same work by hand in the same run.

1. Local model: tokens/s of SmolLM2 through ``providers.stream`` (worker thread, asyncio queue)
   against ``llama_cpp.Llama.create_chat_completion`` iterated directly, same loaded model and
   sampling, outputs checked identical; and the time from llama.cpp yielding the first token to
   that text reaching the caller. Medians of N interleaved runs (see ``bench_local``).
   Targets: ours >= 0.95x direct; first text <= 20 ms after the first token.
2. HTTP path: µs per chunk of ``providers.stream`` against a raw httpx loop (aiter_lines and
   json.loads of each data line) over the same unpaced stream from the fake provider server,
   which runs in a subprocess so it does not share our GIL; median of N runs per wire.

Run: ``.venv/bin/python bench/bench_providers.py [--runs 5] [--tokens 128] [--words 2000]``
"""

import argparse
import asyncio
import json
import os
import socket
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "teorema.settings")

from debates.providers import local, stream  # noqa: E402
from debates.providers.base import Chunk, Completion, Endpoint, Message, Voice  # noqa: E402
from debates.providers.client import close_shared_client  # noqa: E402

PROMPT = [
    Message("system", "You are a careful assistant."),
    Message("user", "Explain in detail why the sky is blue, step by step."),
]


class FirstTokenClock:
    """The loaded model, noting when llama.cpp's iterator yields each call's first piece of text."""

    def __init__(self, llm: Any) -> None:
        self.llm = llm
        self.first_token_at = 0.0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.llm, name)

    def create_chat_completion(self, *args: Any, **kwargs: Any) -> Iterator[dict]:
        self.first_token_at = 0.0
        return self._clocked(self.llm.create_chat_completion(*args, **kwargs))

    def _clocked(self, parts: Iterator[dict]) -> Iterator[dict]:
        for part in parts:
            if not self.first_token_at and part["choices"][0]["delta"].get("content"):
                self.first_token_at = time.perf_counter()
            yield part


@dataclass(frozen=True)
class Run:
    text: str
    tokens: int
    seconds: float  # from the call to the last token
    first_text_s: float  # from the call to the first text in the caller's hands
    handover_s: float  # from llama.cpp yielding the first token to the caller holding its text

    @property
    def tokens_per_s(self) -> float:
        return self.tokens / self.seconds


async def through_layer(clock: FirstTokenClock, voice: Voice) -> Run:
    began = time.perf_counter()
    first = 0.0
    parts: list[str] = []
    async for event in stream(voice, PROMPT):
        if isinstance(event, Chunk):
            first = first or time.perf_counter()
            parts.append(event.text)
        if isinstance(event, Completion):
            ended = time.perf_counter()
            return Run("".join(parts), event.tokens_out, ended - began, first - began, first - clock.first_token_at)
    raise RuntimeError("no completion")


def direct(clock: FirstTokenClock, max_tokens: int) -> Run:
    began = time.perf_counter()
    first = 0.0
    parts: list[str] = []
    messages = [{"role": m.role, "content": m.content} for m in PROMPT]
    settings = {"temperature": 0.0, "repeat_penalty": local.REPEAT_PENALTY, "max_tokens": max_tokens}
    for part in clock.create_chat_completion(messages, stream=True, **settings):
        if text := part["choices"][0]["delta"].get("content"):
            first = first or time.perf_counter()
            parts.append(text)
    ended = time.perf_counter()
    return Run("".join(parts), len(parts), ended - began, first - began, first - clock.first_token_at)


def on_own_thread(measure: Callable[[], Run]) -> Run:
    """Run ``measure`` on a thread of its own and wait until every generation thread has ended.

    libgomp (llama.cpp's OpenMP) keeps a pool for each thread that ran a generation until that
    thread ends, and while a pool is left over, other threads' generations stop spin-waiting:
    direct calls on the main thread made our worker thread's generations 55 instead of 90 tokens/s.
    """
    result: list[Run] = []
    worker = threading.Thread(target=lambda: result.append(measure()))
    worker.start()
    worker.join()
    for thread in threading.enumerate():
        if thread.name == "teorema-local":  # our layer's generation thread, finishing after the Completion
            thread.join()
    return result[0]


def bench_local(runs: int, max_tokens: int) -> None:
    """Tokens/s and first-text latency, our layer against llama-cpp-python used directly.

    Both sides use the one loaded model (same n_threads and n_batch), the same prompt,
    temperature 0, repeat penalty ``local.REPEAT_PENALTY`` and ``max_tokens``; each run's text
    is checked identical to the other side's, so both do the same work. Each side runs on a
    thread of its own that ends before the other starts (see ``on_own_thread``). After one
    warm-up each (weights paged in, prompt cached), N pairs run interleaved, which side goes
    first alternating. tokens/s = tokens / (call to last token). The first token's time is
    taken where llama.cpp's iterator yields it (``FirstTokenClock``); hand-over = first text in
    the caller's hands minus that, which for the direct loop is the loop's own next step.
    Printed: medians of tokens/s and the median of each pair's ratio (ours / direct, so load
    drifting between pairs cancels out), medians of the hand-over and of call-to-first-text,
    and the load average before and after.
    """
    clock = FirstTokenClock(local.model())
    local.model = lambda: clock  # our layer's generations go through the clock too
    endpoint = Endpoint(name="Embedded", wire="local", total_timeout=600)
    voice = Voice(name="bench", model="smollm2", endpoint=endpoint, temperature=0.0, max_tokens=max_tokens)
    sides: dict[str, Callable[[], Run]] = {
        "direct": lambda: direct(clock, max_tokens),
        "ours": lambda: asyncio.run(through_layer(clock, voice)),
    }
    for measure in sides.values():
        on_own_thread(measure)  # warm-up
    load_before = os.getloadavg()
    results: dict[str, list[Run]] = {"direct": [], "ours": []}
    for run in range(runs):
        order = list(sides) if run % 2 else list(reversed(sides))
        for name in order:
            results[name].append(on_own_thread(sides[name]))
        if results["ours"][-1].text != results["direct"][-1].text:
            raise SystemExit("our layer and the direct call generated different text: the comparison is void")
    ours, raw = results["ours"], results["direct"]
    ratios = [o.tokens_per_s / r.tokens_per_s for o, r in zip(ours, raw, strict=True)]

    def ms(values: Iterable[float]) -> str:
        return f"{statistics.median(values) * 1000:6.1f} ms"

    print(f"local SmolLM2-135M Q4_1, {ours[0].tokens} tokens (same text both sides), median of {runs} pairs:")
    print(f"  load average before {fmt_load(load_before)}, after {fmt_load(os.getloadavg())}")
    print(f"  {'':24} {'tokens/s':>9} {'first token -> text':>20} {'call -> first text':>19}")
    for label, side in [("direct llama-cpp-python", raw), ("through providers.stream", ours)]:
        tokens_per_s = statistics.median(r.tokens_per_s for r in side)
        handover, first_text = ms(r.handover_s for r in side), ms(r.first_text_s for r in side)
        print(f"  {label:24} {tokens_per_s:9.1f} {handover:>20} {first_text:>19}")
    print(f"  ours / direct: {statistics.median(ratios):.3f}x (pairs from {min(ratios):.3f} to {max(ratios):.3f})")


def fmt_load(load: tuple[float, float, float]) -> str:
    return " ".join(f"{x:.2f}" for x in load)


async def raw_loop(url: str, headers: dict, body: dict) -> tuple[int, float]:
    async with httpx.AsyncClient() as client:
        began = time.perf_counter()
        chunks = 0
        async with client.stream("POST", url, headers=headers, json=body) as response:
            async for line in response.aiter_lines():
                if line.startswith("data:") and line[5:].strip() != "[DONE]":
                    json.loads(line[5:])
                    chunks += 1
        return chunks, time.perf_counter() - began


async def ours_loop(voice: Voice) -> tuple[int, float]:
    began = time.perf_counter()
    chunks = 0
    async for event in stream(voice, PROMPT):
        chunks += isinstance(event, Chunk)
    elapsed = time.perf_counter() - began
    await close_shared_client()
    return chunks, elapsed


def bench_http(runs: int, words: int) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    options = ["--port", str(port), "--tokens-per-second", "0", "--first-token-delay", "0", "--words", str(words)]
    server = subprocess.Popen(
        [sys.executable, "-m", "tests.fakes.provider_server", *options],
        cwd=ROOT,
        stdout=subprocess.PIPE,
    )
    try:
        server.stdout.readline()  # "Fake provider on ..." once it listens
        base = f"http://127.0.0.1:{port}"
        wires = {
            "openai": (f"{base}/v1", "/chat/completions", {"model": "m", "stream": True}),
            "anthropic": (base, "/v1/messages", {"model": "m", "stream": True}),
            "gemini": (f"{base}/v1beta", "/models/m:streamGenerateContent?alt=sse", {}),
        }
        print(f"HTTP path against the fake server (subprocess, unpaced, ~{words} chunks), median of {runs}:")
        for wire, (base_url, path, extra) in wires.items():
            voice = Voice("bench", "m", Endpoint(name=wire, wire=wire, base_url=base_url, api_key="k"))
            body = {"messages": [{"role": "user", "content": PROMPT[1].content}], **extra}
            if wire == "gemini":
                body = {"contents": [{"role": "user", "parts": [{"text": PROMPT[1].content}]}]}
            ours, raw = [], []
            for _ in range(runs):
                chunks, seconds = asyncio.run(ours_loop(voice))
                ours.append(seconds / chunks * 1e6)
                chunks, seconds = asyncio.run(raw_loop(base_url + path, {}, body))
                raw.append(seconds / chunks * 1e6)
            ours_us, raw_us = statistics.median(ours), statistics.median(raw)
            print(
                f"  {wire:9} providers.stream {ours_us:6.1f} µs/chunk   raw httpx loop {raw_us:6.1f} µs/chunk"
                f"   overhead {ours_us - raw_us:+6.1f} µs/chunk"
            )
    finally:
        server.terminate()
        server.wait(10)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--tokens", type=int, default=128)
    parser.add_argument("--words", type=int, default=2000)
    args = parser.parse_args()
    print(__doc__)
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"load average before: {load} on {os.cpu_count()} cores")
    bench_local(args.runs, args.tokens)
    bench_http(args.runs, args.words)
    print("load average after: ", " ".join(f"{x:.2f}" for x in os.getloadavg()))


if __name__ == "__main__":
    main()
