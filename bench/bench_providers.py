"""Provider layer overhead, measured against doing the same work by hand in the same run.

1. Local model: tokens/s of SmolLM2 through ``providers.stream`` (worker thread, asyncio queue)
   against ``llama_cpp.Llama.create_chat_completion`` iterated directly, same loaded model,
   same prompt, temperature 0 so both produce the same tokens; median of N runs after a
   warm-up, alternating the order. Target: ours >= 0.9x direct.
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
import time
from pathlib import Path

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


async def through_layer(voice: Voice) -> tuple[int, float]:
    began = time.perf_counter()
    async for event in stream(voice, PROMPT):
        if isinstance(event, Completion):
            return event.tokens_out, time.perf_counter() - began
    raise RuntimeError("no completion")


def direct(llm, max_tokens: int) -> tuple[int, float]:
    began = time.perf_counter()
    tokens = 0
    messages = [{"role": m.role, "content": m.content} for m in PROMPT]
    for part in llm.create_chat_completion(messages, stream=True, max_tokens=max_tokens, temperature=0.0):
        if part["choices"][0]["delta"].get("content"):
            tokens += 1
    return tokens, time.perf_counter() - began


def bench_local(runs: int, max_tokens: int) -> None:
    llm = local.model()
    endpoint = Endpoint(name="Embedded", wire="local", total_timeout=600)
    voice = Voice(name="bench", model="smollm2", endpoint=endpoint, temperature=0.0, max_tokens=max_tokens)
    direct(llm, max_tokens)  # warm-up: loads weights into cache, fills the prompt cache
    asyncio.run(through_layer(voice))
    ours, raw = [], []
    for run in range(runs):
        pair = [("raw", lambda: direct(llm, max_tokens)), ("ours", lambda: asyncio.run(through_layer(voice)))]
        for name, measure in pair if run % 2 else reversed(pair):
            tokens, seconds = measure()
            (ours if name == "ours" else raw).append(tokens / seconds)
    ours_median, raw_median = statistics.median(ours), statistics.median(raw)
    print(f"local SmolLM2-135M Q4_1, {max_tokens} tokens, median of {runs}:")
    print(f"  direct llama-cpp-python  {raw_median:8.1f} tokens/s")
    print(f"  through providers.stream {ours_median:8.1f} tokens/s  ({ours_median / raw_median:.2f}x direct)")


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
