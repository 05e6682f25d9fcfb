"""Live-stream benchmark: chunk latency from the fake provider to a websocket client, and costs.

Method. One real Daphne process (the app as `make run` starts it: in-process runs, in-memory
channel layer and cache, SQLite in a temp dir) with a 3-voice teorema panel on the fake
provider server, which runs in this process. Every answer is made of unique words
("model.request.wN"); this process records the instant (time.monotonic, system-wide on Linux)
each word is written to a provider stream, and a real websocket client (the `websockets`
package, signed in, same origin) per debate records the instant the word first arrives in a
fragment (the page's snapshot is skipped). Latency = arrival - write, so it includes the
provider parsing, the engine, LiveSink coalescing (TEOREMA_FLUSH_INTERVAL_MS, default 75 ms),
the channel layer, the consumer and Daphne's websocket framing. Debates start together through
the JSON API at 1, 10 and 50 at once. Also counted: websocket messages received per 1,000
streamed words (tokens), and DB writes (INSERT/UPDATE/DELETE statements executed by the
Daphne process, counted by a connection execute-wrapper) per 1,000 tokens.

Usage: python bench/bench_live.py [--words 60] [--tps 20] [--levels 1,10,50]
"""

import argparse
import asyncio
import json
import os
import re
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
DATA = Path(tempfile.mkdtemp(prefix="teorema-bench-live-"))
os.environ.update(DJANGO_SETTINGS_MODULE="teorema.settings", TEOREMA_DATA_DIR=str(DATA), LOG_LEVEL="WARNING")

import django  # noqa: E402

django.setup()

import websockets  # noqa: E402
from django.contrib.auth import get_user_model  # noqa: E402
from django.contrib.sessions.backends.db import SessionStore  # noqa: E402
from django.core.management import call_command  # noqa: E402

from debates.models import ApiToken  # noqa: E402
from debates.tokens import assign_secret  # noqa: E402
from tests.fakes import wire  # noqa: E402
from tests.fakes.provider_server import FakeProviderServer, Script  # noqa: E402
from tests.viewer.conftest import make_roster  # noqa: E402

WORD = re.compile(r"model-\w+\.\d+\.w\d+")
sent: dict[str, float] = {}


def record_writes(piece):
    """Wrap the fake server's chunk writer: note when each word leaves for the provider stream."""

    def wrapped(model, text):
        for word in WORD.findall(text):
            sent[word] = time.monotonic()
        return piece(model, text)

    return wrapped


COUNTER = """
import signal, sys
from django.db.backends.signals import connection_created
writes = [0]
def count(execute, sql, params, many, context):
    if sql.lstrip()[:6].upper() in {"INSERT", "UPDATE", "DELETE"}:
        writes[0] += 1
    return execute(sql, params, many, context)
def hook(connection, **kwargs):
    if count not in connection.execute_wrappers:  # the signal fires at every reconnection
        connection.execute_wrappers.append(count)
connection_created.connect(hook, weak=False)
report, port = sys.argv[1], sys.argv[2]
signal.signal(signal.SIGUSR1, lambda *a: open(report, "w").write(str(writes[0])))
sys.argv = ["daphne", "-v", "0", "-b", "127.0.0.1", "-p", port, "teorema.asgi:application"]
import django; django.setup()
from daphne.cli import CommandLineInterface
CommandLineInterface().run(sys.argv[1:])
"""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def db_writes(server: subprocess.Popen) -> int:
    out = DATA / "writes"
    out.unlink(missing_ok=True)
    server.send_signal(signal.SIGUSR1)
    for _ in range(100):
        if out.exists() and out.read_text():
            return int(out.read_text())
        time.sleep(0.05)
    raise RuntimeError("the server did not report its DB writes")


def api_ask(url: str, token: str) -> int:
    body = json.dumps({"text": "Should we add read replicas or shard the database?", "panel": "house",
                       "force_panel": True}).encode()  # fmt: skip
    request = urllib.request.Request(
        f"{url}/api/questions", body, {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request) as response:
        return json.loads(response.read())["id"]


async def watch(url: str, question_id: int, cookie: str) -> tuple[list[float], int]:
    """Follow one debate to its end; latencies of first arrivals and the messages received."""
    latencies, messages, seen = [], 0, set()
    ws_url = url.replace("http", "ws", 1) + f"/ws/questions/{question_id}/"
    headers = {"Cookie": f"sessionid={cookie}"}
    async with websockets.connect(ws_url, origin=url, additional_headers=headers, max_size=None) as ws:
        first = True
        async for message in ws:
            arrived = time.monotonic()
            messages += 1
            for word in set(WORD.findall(message)) - seen:
                seen.add(word)
                if not first and word in sent:
                    latencies.append(arrived - sent[word])
            first = False
    return latencies, messages


async def scenario(url: str, token: str, cookie: str, debates: int) -> tuple[list[float], int]:
    loop = asyncio.get_running_loop()
    ids = await asyncio.gather(*(loop.run_in_executor(None, api_ask, url, token) for _ in range(debates)))
    results = await asyncio.gather(*(watch(url, qid, cookie) for qid in ids))
    return [lat for lats, _ in results for lat in lats], sum(count for _, count in results)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--words", type=int, default=60)
    parser.add_argument("--tps", type=float, default=20.0, help="words per second per stream")
    parser.add_argument("--levels", default="1,10,50")
    args = parser.parse_args()

    call_command("migrate", "--no-input", "-v0")
    call_command("collectstatic", "--no-input", "-v0")
    fake = FakeProviderServer().start()
    wire.OPENAI.piece = record_writes(wire.OPENAI.piece)
    make_roster(fake.base_url("openai"))

    def answer(request) -> str:
        words = " ".join(f"{request.model}.{request.number}.w{i}" for i in range(args.words))
        return f"Add read replicas because reads dominate the database; shard later. {words}"

    for model in ("model-alpha", "model-beta", "model-gamma", "model-moderator"):
        fake.script(model, Script(answer=answer, first_token_delay=0.5, tokens_per_second=args.tps))
    user = get_user_model().objects.create_user("bench", password="bench-pw-123")
    token = ApiToken(user=user, name="bench")
    raw = assign_secret(token)
    token.save()
    session = SessionStore()
    session.update({"_auth_user_id": str(user.pk), "_auth_user_backend": "django.contrib.auth.backends.ModelBackend",
                    "_auth_user_hash": user.get_session_auth_hash()})  # fmt: skip
    session.create()

    port = str(free_port())
    env = {**os.environ, "TEOREMA_QUESTIONS_PER_HOUR": "100000"}
    server = subprocess.Popen([sys.executable, "-c", COUNTER, str(DATA / "writes"), port], cwd=ROOT, env=env)
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(300):
            try:
                urllib.request.urlopen(f"{url}/accounts/login/", timeout=2)
                break
            except OSError:
                time.sleep(0.2)
        print(__doc__.split("Usage:")[0].strip(), "\n")
        print(f"answers: {args.words} words at {args.tps:g} words/s per stream, 3 voices + moderator (7 calls)")
        columns = ("debates", "median ms", "p95 ms", "tokens", "ws msgs/1k tok", "DB writes/1k tok")
        print(" ".join(f"{name:>{width}}" for name, width in zip(columns, (8, 10, 8, 8, 15, 17), strict=True)))
        for level in (int(n) for n in args.levels.split(",")):
            sent.clear()
            before = db_writes(server)
            latencies, messages = asyncio.run(scenario(url, raw, session.session_key, level))
            writes = db_writes(server) - before
            tokens = len(sent)
            p95 = statistics.quantiles(latencies, n=20)[-1] * 1000
            print(f"{level:>8} {statistics.median(latencies) * 1000:>10.1f} {p95:>8.1f} {tokens:>8} "
                  f"{messages * 1000 / tokens:>15.1f} {writes * 1000 / tokens:>17.1f}")  # fmt: skip
    finally:
        server.terminate()
        server.wait(10)
        fake.stop()


if __name__ == "__main__":
    main()
