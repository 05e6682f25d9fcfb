"""/livez, /readyz and /healthz (the same as /readyz): what a load balancer, Kubernetes or compose's
healthcheck asks; readiness answers for the database and the channel layer, to anyone, without a
session, a login redirect or a rate limit."""

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from channels.testing import HttpCommunicator
from django.db import OperationalError, connections
from django.test import Client, override_settings

from debates import health
from debates.runs import lease, tasks
from teorema.asgi import application

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.django_db
UNREACHABLE_REDIS = {
    "default": {"BACKEND": "channels_redis.core.RedisChannelLayer", "CONFIG": {"hosts": ["redis://127.0.0.1:1/0"]}}
}


def test_healthz_answers_ok_for_the_database_and_the_channel_layer(client: Client) -> None:
    response = client.get("/healthz")

    assert response.status_code == 200
    assert response.json() == {"status": "ok", "database": "ok", "channel_layer": "ok"}
    assert "no-store" in response["Cache-Control"]


def refuse(self, *args, **kwargs):
    raise OperationalError("connection to server at 10.0.0.5 failed: Connection refused")


def test_a_broken_database_answers_503_naming_the_database(client: Client, monkeypatch) -> None:
    monkeypatch.setattr(type(connections["default"]), "cursor", refuse)

    response = client.get("/healthz")

    assert response.status_code == 503
    assert response.json() == {"status": "failed", "database": "failed", "channel_layer": "ok"}
    assert "10.0.0.5" not in response.content.decode()  # the reason goes to the log, not to anyone asking


@override_settings(CHANNEL_LAYERS=UNREACHABLE_REDIS)
def test_an_unreachable_channel_layer_answers_503_naming_it(client: Client) -> None:
    response = client.get("/healthz")

    assert response.status_code == 503
    assert response.json() == {"status": "failed", "database": "ok", "channel_layer": "failed"}


def test_healthz_needs_no_login_sets_no_cookie_and_is_never_rate_limited(client: Client, settings) -> None:
    settings.TEOREMA = settings.TEOREMA | {"QUESTIONS_PER_HOUR": 1}

    responses = [client.get("/healthz") for _ in range(5)]

    assert [r.status_code for r in responses] == [200] * 5
    assert not any(r.cookies for r in responses)
    assert "Cookie" not in responses[0].get("Vary", "")


def test_healthz_is_not_redirected_to_https_in_production(tmp_path: Path) -> None:
    """A probe speaks plain HTTP to the container; a redirect would read as a failure (or as healthy)."""
    probe = (
        "import django, json; django.setup(); from django.test import Client; "
        "r = Client().get('/healthz', HTTP_HOST='teorema.example.com'); print(json.dumps([r.status_code, r.json()]))"
    )
    clean = {
        k: v for k, v in os.environ.items() if not k.startswith("TEOREMA_") and k not in {"DATABASE_URL", "REDIS_URL"}
    }
    env = clean | {
        "DJANGO_SETTINGS_MODULE": "teorema.settings",
        "TEOREMA_PRODUCTION": "1",
        "TEOREMA_DATA_DIR": str(tmp_path),
        "SECRET_KEY": "x" * 50,
        "ALLOWED_HOSTS": "teorema.example.com",
    }

    result = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )

    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout.splitlines()[-1]) == [
        200,
        {"status": "ok", "database": "ok", "channel_layer": "ok"},
    ]


def get(server, path: str):
    return HttpCommunicator(server, "GET", path, headers=[(b"host", b"127.0.0.1")]).get_response()


@pytest.mark.django_db(transaction=True)
async def test_with_the_database_down_a_fresh_processs_probe_is_a_json_503_and_never_waits_for_resuming(
    monkeypatch, settings
) -> None:
    """Resuming with the database down costs a connection's timeout, longer than a probe waits: the
    probes leave it to the first other call, which tries again until it succeeds."""
    settings.RUN_IN_PROCESS = True
    looked: list[int] = []
    found = lease.resumable_ids
    monkeypatch.setattr(lease, "resumable_ids", lambda: looked.append(1) or found())
    server = tasks.ResumeOnFirstCall(application.app)  # a fresh process's first call
    with monkeypatch.context() as down:
        down.setattr(type(connections["default"]), "cursor", refuse)
        response = await get(server, "/healthz")
        assert response["status"] == 503
        assert json.loads(response["body"]) == {"status": "failed", "database": "failed", "channel_layer": "ok"}
        assert (await get(server, "/livez"))["status"] == 200
        assert looked == []
        await get(server, "/accounts/login/")  # the first other call tries, and fails
    assert looked == [1]
    assert server.looking is None
    for _ in range(2):  # the database is back: the next call resumes, and only that one
        assert (await get(server, "/accounts/login/"))["status"] == 200
    assert looked == [1, 1]
    assert server.looking is not None
    server.looking.cancel()


def test_livez_reads_nothing_and_answers_with_the_database_down(client: Client, monkeypatch) -> None:
    monkeypatch.setattr(type(connections["default"]), "cursor", refuse)
    response = client.get("/livez")
    assert (response.status_code, response.json()) == (200, {"status": "alive"})
    assert "no-store" in response["Cache-Control"]


def test_readyz_is_healthz(client: Client) -> None:
    assert (
        client.get("/readyz").json()
        == client.get("/healthz").json()
        == {
            "status": "ok",
            "database": "ok",
            "channel_layer": "ok",
        }
    )


async def test_a_burst_of_probes_shares_one_check_of_each_kind(monkeypatch) -> None:
    """200 probes at once cost one query, not 200 queued behind two threads (and each other)."""
    ran: list[str] = []

    async def slow_check() -> None:
        ran.append("check")
        await asyncio.sleep(0.05)

    shared = health.Shared(slow_check)
    await asyncio.gather(*(shared() for _ in range(200)))
    assert ran == ["check"]
    await shared()  # the next probe after it ended checks again
    assert ran == ["check", "check"]


async def test_a_failing_shared_check_fails_every_probe_waiting_for_it() -> None:
    async def broken() -> None:
        await asyncio.sleep(0.01)
        raise OSError("connection refused")

    shared = health.Shared(broken)
    outcomes = await asyncio.gather(*(shared() for _ in range(5)), return_exceptions=True)
    assert all(isinstance(outcome, OSError) for outcome in outcomes)
    assert shared.running == {}
