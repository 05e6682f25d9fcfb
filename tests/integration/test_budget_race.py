"""Two runs racing for the last of a budget cannot both pass it: two processes on one PostgreSQL,
released at the same instant, each reserving a run's expected cost where the budget has room for one.

Either as they are asked (each process asks and runs its question, as ``manage.py ask`` does) or as
their runs start (each process a worker running a queued question): the budget's row lock makes the
second wait for the first's hold and see it, so one runs and the other is refused in words before
its first call.
"""

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path

import psycopg
import pytest

from tests.fakes.answers import SYNTHESIS
from tests.fakes.provider_server import FakeProviderServer
from tests.integration import cluster as deploy

pytestmark = [pytest.mark.services, pytest.mark.timeout(300)]
ROOT = Path(__file__).resolve().parents[2]
MODELS = ("model-alpha", "model-beta", "model-gamma")
# Room for one run of the panel (expected $0.0216: three voices at $1/$2 per 1M tokens), not for two.
LIMIT = "0.03"
REFUSED = "The site's daily budget of $0.03 has $0.0084 left, and this run is expected to cost $0.02"
SEED = """
import json
from decimal import Decimal
from django.contrib.auth import get_user_model
from debates.models import Budget
from tests.fakes.roster import make_panel, make_question
alice = get_user_model().objects.create_user("alice")
panel = make_panel({base_url!r})
Budget.objects.create(scope="site", period="day", limit=Decimal({limit!r}))
print(json.dumps([make_question(panel, f"Race {{n}}: shard or replicate?", owner=alice).pk for n in (1, 2)]))
"""
# One racer: says it is ready, waits for the start, then asks (or runs its queued question).
RACER = """
import asyncio, json, pathlib, time
from django.contrib.auth import get_user_model
from debates import service
from debates.refusal import Refused
from debates.runs import execute
pathlib.Path({ready!r}).touch()
while not pathlib.Path({go!r}).exists():
    time.sleep(0.002)
try:
    if {asked!r}:
        alice = get_user_model().objects.get(username="alice")
        question = service.ask(alice, source="cli", runs_here=True, text={text!r}, panel="house").pk
    else:
        question = {question!r}
    print(json.dumps({{"question": question, "status": asyncio.run(execute.execute(question))}}))
except Refused as refused:
    print(json.dumps({{"refused": refused.message}}))
"""


@pytest.fixture
def deployment(tmp_path: Path) -> Iterator[tuple[dict[str, str], list[int], FakeProviderServer]]:
    """A migrated PostgreSQL database of our own with the panel, the budget and two queued questions."""
    deploy.require_services()
    with FakeProviderServer() as server, deploy.postgres_database("teorema_budget") as database_url:
        for model in MODELS:
            server.script(model, f"{model}: read replicas, because reporting reads dominate the load.")
        server.script("model-moderator", SYNTHESIS)
        env = {k: v for k, v in os.environ.items() if not k.startswith(("TEOREMA_", "DJANGO_", "REDIS_URL"))}
        env |= {"DATABASE_URL": database_url, "TEOREMA_DATA_DIR": str(tmp_path), "PYTHONPATH": str(ROOT)}
        env |= {"TEOREMA_RUN_IN_PROCESS": "0", "DJANGO_SETTINGS_MODULE": "teorema.settings"}
        manage(env, "migrate", "--no-input", "-v0")
        seeded = manage(env, "shell", "-v0", "-c", SEED.format(base_url=server.base_url("openai"), limit=LIMIT))
        yield env, json.loads(seeded.splitlines()[-1]), server


def manage(env: dict[str, str], *args: str) -> str:
    done = subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr.decode()
    return done.stdout.decode()


def race(env: dict[str, str], tmp_path: Path, racers: list[dict[str, object]]) -> list[dict[str, object]]:
    """Start every racer, release them together once each is ready, and read what each says."""
    go = tmp_path / "go"
    started = []
    for n, fields in enumerate(racers):
        ready = tmp_path / f"ready-{n}"
        script = RACER.format(ready=str(ready), go=str(go), **fields)
        argv = [sys.executable, "manage.py", "shell", "-v0", "-c", script]
        started.append(
            (ready, subprocess.Popen(argv, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE))
        )
    deadline = time.monotonic() + 60
    while not all(ready.exists() for ready, _ in started):
        assert time.monotonic() < deadline, "the racers never got ready"
        assert all(p.poll() is None for _, p in started), [p.stderr.read().decode() for _, p in started if p.stderr]
        time.sleep(0.01)
    go.touch()
    said = []
    for _, process in started:
        out, err = process.communicate(timeout=180)
        assert process.returncode == 0, err.decode()
        said.append(json.loads(out.decode().strip().splitlines()[-1]))
    return said


def rows(env: dict[str, str], sql: str) -> list[tuple]:
    with psycopg.connect(env["DATABASE_URL"]) as connection:
        return connection.execute(sql).fetchall()


@pytest.mark.parametrize("when", ["asked", "started"])
def test_two_runs_racing_for_the_last_of_a_budget_cannot_both_pass_it(deployment, tmp_path, when):
    env, queued, server = deployment
    racers = [
        {"asked": when == "asked", "question": question, "text": f"Racer {n}: shard or replicate?"}
        for n, question in enumerate(queued)
    ]
    said = race(env, tmp_path, racers)

    ran = [s for s in said if s.get("status") == "done"]
    assert len(ran) == 1, said
    [(loser, refused)] = [(racer, s) for racer, s in zip(racers, said, strict=True) if s not in ran]
    if when == "asked":
        assert refused["refused"].startswith(REFUSED)  # refused before its question was stored
        text = str(loser["text"])
    else:
        [(error, text)] = rows(env, f"SELECT error, text FROM debates_question WHERE id = {refused['question']}")
        assert error.startswith(REFUSED)  # its run failed before its first call, in words
        assert not rows(env, f"SELECT id FROM debates_round WHERE question_id = {refused['question']}")
    assert not [r for r in server.requests if any(text in said for _, said in r.messages)]  # no call for it
    spent, held = rows(env, "SELECT coalesce(sum(cost), 0), coalesce(sum(reserved), 0) FROM debates_question")[0]
    assert held == 0  # every hold ended with its run
    assert spent <= Decimal(LIMIT)
