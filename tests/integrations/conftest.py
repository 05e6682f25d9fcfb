"""A real Daphne on loopback serving Teorema (its own SQLite and data dir), users with API tokens,
and a panel on the fake provider server: what an MCP client, the ``openai`` package and the
``llm`` command line are pointed at."""

import json
import os
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.browser.conftest import daphne
from tests.fakes.answers import SYNTHESIS
from tests.fakes.provider_server import FakeProviderServer, Script

ROOT = Path(__file__).resolve().parents[2]
SEED = """
import json
from django.contrib.auth import get_user_model
from debates.models import ApiToken
from debates.tokens import assign_secret
from tests.fakes.roster import make_panel
tokens = {{}}
for name in ("alice", "bob", "root"):
    user = get_user_model().objects.create_user(name, password=f"pw-{{name}}-123", is_staff=name == "root")
    token = ApiToken(user=user, name="tools")
    tokens[name] = assign_secret(token)
    token.save()
make_panel({base_url!r})
print(json.dumps(tokens))
"""


@dataclass(frozen=True)
class Teorema:
    url: str
    env: dict[str, str]
    tokens: dict[str, str]  # username -> API token
    database: Path

    def query(self, sql: str, *params: object) -> list[tuple]:
        """The server's own database, read as it stands (SQLite, read-only)."""
        with sqlite3.connect(f"file:{self.database}?mode=ro", uri=True) as connection:
            return connection.execute(sql, params).fetchall()


@pytest.fixture(scope="package")
def teorema(provider_server: FakeProviderServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Teorema]:
    data = tmp_path_factory.mktemp("teorema-integrations")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DATABASE_URL", "REDIS_URL", "TEOREMA_"))}
    env |= {"TEOREMA_DATA_DIR": str(data), "DJANGO_SETTINGS_MODULE": "teorema.settings", "PYTHONPATH": str(ROOT)}
    # A short lease: a run whose stdio MCP server its client ended is taken up by the web server soon.
    env |= {"TEOREMA_QUESTIONS_PER_HOUR": "1000", "TEOREMA_LEASE_SECONDS": "3"}
    # Files of 1 MiB at most: the request size limit (which grows with the files') stays near 3 MB.
    env |= {"TEOREMA_ATTACHMENT_MAX_MB": "1", "TEOREMA_ATTACHMENTS_MAX_MB": "1"}
    manage = [sys.executable, str(ROOT / "manage.py")]
    subprocess.run([*manage, "migrate", "--no-input", "-v0"], cwd=ROOT, env=env, check=True)
    seed = SEED.format(base_url=provider_server.base_url("openai"))
    made = subprocess.run([*manage, "shell", "-v0", "-c", seed], cwd=ROOT, env=env, check=True, capture_output=True)
    tokens = json.loads(made.stdout.decode().strip().splitlines()[-1])
    with daphne(env, data) as url:
        yield Teorema(url, env, tokens, next(data.glob("*.sqlite3")))


def voice_answer(family: str) -> str:
    return f"{family.upper()} holds: add read replicas, since reads dominate the load. Confidence 70%."


@pytest.fixture
def scripted(fake_provider: FakeProviderServer) -> FakeProviderServer:
    """Three voices that agree, streaming; a moderator that writes the synthesis in words."""
    for family in ("alpha", "beta", "gamma"):
        fake_provider.script(family_model(family), Script(answer=voice_answer(family), tokens_per_second=400))
    fake_provider.script("model-moderator", Script(answer=SYNTHESIS, tokens_per_second=400))
    return fake_provider


def family_model(family: str) -> str:
    return f"model-{family}"
