"""Attachments, measured: reading a file in the limited child process, and what a file costs the first
voice's first token.

1. Extraction: ``attachments.check.check`` of a 50-page PDF (about 3,000 characters a page), end to
   end (the child process started, the file sent, pypdf reading every page, the text back), against
   the same call on a one-line text file, which is the child's start and round trip alone.
2. First token: one streamed call of ``providers.stream`` to the fake provider server (a subprocess:
   it does not share our GIL; no pacing, no first-token delay) on the OpenAI wire, with no attachment,
   with a 5 MB PDF sent natively (a ``file`` part, base64), and with the same PDF's text in the prompt
   (the fallback for a model that reads no PDF); time from the call to its first chunk.
   Upload and extraction (the ``check`` of that 5 MB file, as the service runs it before anything is
   stored) are stated apart: they happen once per question, before the debate.

Medians of N runs, interleaved. Run: ``.venv/bin/python bench/bench_attachments.py [--runs 5]``
"""

import argparse
import asyncio
import os
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "teorema.settings")

import django  # noqa: E402

django.setup()

from debates.attachments.check import Upload, check  # noqa: E402
from debates.engine import attachments, prompts  # noqa: E402
from debates.engine.attachments import Attachment  # noqa: E402
from debates.providers import stream  # noqa: E402
from debates.providers.base import Chunk, Endpoint, Message, Voice  # noqa: E402
from debates.providers.client import close_shared_client  # noqa: E402
from tests.fakes import files  # noqa: E402

PAGE = ("Quarterly revenue fell four percent while churn in Europe doubled; the board asks why. " * 36)[:3000]
MB = 2**20
PACING = ("--tokens-per-second", "0", "--first-token-delay", "0", "--words", "20")


def median_s(runs: int, work: Callable[[], object]) -> float:
    times = []
    for _ in range(runs):
        began = time.perf_counter()
        work()
        times.append(time.perf_counter() - began)
    return statistics.median(times)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


async def first_token(voice: Voice, messages: list[Message]) -> float:
    began = time.perf_counter()
    async for event in stream(voice, messages):
        if isinstance(event, Chunk):
            return time.perf_counter() - began
    raise RuntimeError("no chunk came")


async def first_tokens(voice: Voice, variants: dict[str, list[Message]], runs: int) -> dict[str, float]:
    times: dict[str, list[float]] = {name: [] for name in variants}
    for _ in range(runs):
        for name, messages in variants.items():  # interleaved: a slow moment hits every variant alike
            times[name].append(await first_token(voice, messages))
    await close_shared_client()
    return {name: statistics.median(found) for name, found in times.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    runs = parser.parse_args().runs

    report = files.pdf([f"Page {n}. {PAGE}" for n in range(1, 51)])
    note = Upload("note.txt", "text/plain", b"One line.")
    extraction = median_s(runs, lambda: check([Upload("report.pdf", "application/pdf", report)]))
    start_alone = median_s(runs, lambda: check([note]))
    size = f"{len(report) / 1024:.0f} KB, {50 * len(PAGE):,} characters"
    print(f"1. Extraction of a 50-page PDF ({size}), median of {runs}:")
    print(f"   check() end to end      {extraction * 1000:7.0f} ms")
    print(f"   a one-line text file    {start_alone * 1000:7.0f} ms   (the child's start and round trip)")
    pypdf = extraction - start_alone
    print(f"   pypdf's share           {pypdf * 1000:7.0f} ms   ({pypdf / 50 * 1000:.1f} ms a page)")

    big = files.pdf([f"Page {n}. {PAGE}" for n in range(1, 51)], pad=5 * MB - len(report))
    upload = median_s(runs, lambda: check([Upload("big.pdf", "application/pdf", big)]))
    [checked] = check([Upload("big.pdf", "application/pdf", big)])
    attached = Attachment("big.pdf", "pdf", "application/pdf", big, checked.text, checked.pages)
    port = free_port()
    server = subprocess.Popen(
        [*(sys.executable, "-m", "tests.fakes.provider_server", "--port", str(port)), *PACING],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,  # it logs each stream this bench stops reading after its first chunk
    )
    try:
        time.sleep(1.5)
        endpoint = Endpoint("bench", "openai", f"http://127.0.0.1:{port}/v1", "sk-bench", max_retries=0)
        reader = Voice("reader", "gpt-4o", endpoint, vision=True, pdf=True)
        text_reader = Voice("text reader", "deepseek-chat", endpoint)
        question = "Why did revenue fall?"

        def prompt(voice: Voice, files_: tuple[Attachment, ...]) -> list[Message]:
            brief = prompts.brief(question, files=prompts.attachments_block(files_, voice))
            return prompts.with_parts(prompts.messages("answer", brief=brief), attachments.parts(files_, voice))

        variants = {
            "no attachment": prompt(reader, ()),
            "5 MB PDF natively": prompt(reader, (attached,)),
            "the PDF's text": prompt(text_reader, (attached,)),
        }
        found = asyncio.run(first_tokens(reader, variants, runs))
    finally:
        server.terminate()
        server.wait(10)
    print(f"\n2. The first voice's first token (OpenAI wire, fake provider in a subprocess), median of {runs}:")
    for name, seconds in found.items():
        ratio = seconds / found["no attachment"]
        print(f"   {name:<22} {seconds * 1000:7.1f} ms   ({ratio:.1f}x)")
    print(f"   upload and extraction of the 5 MB PDF, once per question before the debate: {upload * 1000:.0f} ms")


if __name__ == "__main__":
    main()
