"""How soon a client outside the page sees the debate: the OpenAI-compatible endpoint's first
reasoning token and first content token, against the page's first words of a voice and of the
synthesis, on the same fake providers.

Method. One Daphne (``teorema.serve``, single-process mode, SQLite) and the fake provider server
on loopback (the OpenAI wire; in this process, on its own thread): three voices and a moderator,
each 50 ms to its first token, then 200 tokens/s; the debate runs its blind round, one debate
round and the synthesis. Each repetition asks twice, interleaved, in the order page / endpoint /
page / ...:

- the page: the clock starts as the client POSTs the question (``/api/questions``, as the form's
  submit), then opens the question's websocket as the page does after its redirect; it stops at
  the first fragment holding a voice's words, and at the first holding the synthesis's;
- the endpoint: the clock starts as the ``openai`` package's streamed request is sent; it stops at
  the first ``reasoning_content`` delta holding a voice's words, and at the first content delta.

Printed: the medians and the p95 of each, and the endpoint's median minus the page's (the goal:
within 30 ms). Usage: python bench/bench_elsewhere.py [--repeat 15]
"""

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
import openai
from websockets.asyncio.client import connect

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.fakes.provider_server import FakeProviderServer, Script  # noqa: E402
from tests.integration.cluster import USER_SETUP, free_port  # noqa: E402

VOICE, SYNTHESIS = "VOICEWORDS", "SYNTHWORDS"  # what each first token carries, to be found on arrival
PACE = {"first_token_delay": 0.05, "tokens_per_second": 200}
SEED = """
from tests.fakes.roster import make_panel
make_panel({base_url!r})
"""


def start(fake: FakeProviderServer, data: Path) -> tuple[subprocess.Popen, str, dict]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DATABASE_URL", "REDIS_URL", "TEOREMA_"))}
    env |= {"TEOREMA_DATA_DIR": str(data), "DJANGO_SETTINGS_MODULE": "teorema.settings", "PYTHONPATH": str(ROOT)}
    env |= {"TEOREMA_QUESTIONS_PER_HOUR": "100000", "LOG_LEVEL": "WARNING"}
    manage = [sys.executable, str(ROOT / "manage.py")]
    subprocess.run([*manage, "migrate", "--no-input", "-v0"], cwd=ROOT, env=env, check=True)
    subprocess.run([*manage, "shell", "-v0", "-c", SEED.format(base_url=fake.base_url("openai"))], env=env, check=True)
    made = subprocess.run(
        [*manage, "shell", "-c", USER_SETUP.format(name="bench")], env=env, check=True, capture_output=True, text=True
    )
    credentials = json.loads(next(line for line in made.stdout.splitlines() if line.startswith("USER "))[5:])
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "teorema.serve", "-b", "127.0.0.1", "-p", str(port), "teorema.asgi:application"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    for _ in range(300):
        try:
            httpx.get(f"{url}/healthz", timeout=1)
            break
        except httpx.HTTPError:
            time.sleep(0.1)
    return server, url, credentials


async def page(url: str, credentials: dict, text: str) -> tuple[float, float]:
    """The form's POST, then the websocket, as the page's reader gets them."""
    headers = {"Authorization": f"Bearer {credentials['token']}"}
    async with httpx.AsyncClient(headers=headers) as http:
        began = time.perf_counter()
        asked = await http.post(f"{url}/api/questions", json={"text": text, "panel": "house"})
    socket_url = url.replace("http", "ws", 1) + f"/ws/questions/{asked.json()['id']}/"
    voice = synthesis = 0.0
    cookie = {"Cookie": f"sessionid={credentials['session']}", "Origin": url}
    async with connect(socket_url, additional_headers=cookie, max_size=None) as socket:
        async for message in socket:
            now = time.perf_counter() - began
            voice = voice or (now if VOICE in message else 0.0)
            if SYNTHESIS in message:
                synthesis = now
                break
    return voice, synthesis


async def endpoint(url: str, credentials: dict, text: str) -> tuple[float, float]:
    client = openai.AsyncOpenAI(base_url=f"{url}/v1", api_key=credentials["token"], max_retries=0)
    voice = synthesis = 0.0
    began = time.perf_counter()
    stream = await client.chat.completions.create(
        model="teorema/house", messages=[{"role": "user", "content": text}], stream=True
    )
    async for chunk in stream:
        now = time.perf_counter() - began
        for choice in chunk.choices:
            reasoning = (choice.delta.model_extra or {}).get("reasoning_content") or ""
            voice = voice or (now if VOICE in reasoning else 0.0)
            synthesis = synthesis or (now if choice.delta.content and SYNTHESIS in choice.delta.content else 0.0)
    await client.close()
    return voice, synthesis


def p95(values: list[float]) -> float:
    return sorted(values)[max(0, round(0.95 * len(values)) - 1)]


async def main(repeat: int) -> None:
    with FakeProviderServer() as fake, tempfile.TemporaryDirectory(prefix="teorema-bench-") as data:
        for family in ("alpha", "beta", "gamma"):
            fake.script(f"model-{family}", Script(answer=f"{VOICE} {family} holds: add read replicas.", **PACE))
        fake.script("model-moderator", Script(answer=f"{SYNTHESIS} ## Verdict\nUse read replicas.", **PACE))
        server, url, credentials = start(fake, Path(data))
        try:
            await endpoint(url, credentials, "A first question warms the server up.")
            figures: dict[str, list[tuple[float, float]]] = {"page": [], "endpoint": []}
            for n in range(repeat):
                for name, ask in (("page", page), ("endpoint", endpoint)):
                    figures[name].append(await ask(url, credentials, f"Replicas or sharding? ({name} {n})"))
        finally:
            server.terminate()
            server.wait(10)
    print(f"{repeat} repetitions each, interleaved; milliseconds from the client's request")
    print(f"{'':10} {'first voice words':>24} {'first synthesis words':>24}")
    medians = {}
    for name, runs in figures.items():
        voice, synthesis = [v * 1000 for v, _ in runs], [s * 1000 for _, s in runs]
        medians[name] = (statistics.median(voice), statistics.median(synthesis))
        cells = [f"median {statistics.median(v):.1f} · p95 {p95(v):.1f}" for v in (voice, synthesis)]
        print(f"{name:10} {cells[0]:>24} {cells[1]:>24}")
    later = [e - p for e, p in zip(medians["endpoint"], medians["page"], strict=True)]
    print(f"endpoint − page (medians): first reasoning {later[0]:+.1f} ms, first content {later[1]:+.1f} ms")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=15)
    asyncio.run(main(parser.parse_args().repeat))
