"""Issue 50: Telegram in webhook mode answers, as in polling mode. A real Teorema process (Daphne)
takes Telegram's webhook posts, runs the default panel on the fake provider server and sends the
verdict through python-telegram-bot to the fake Bot API server, for a question with a file and
without. In-process tests could not see it: the view's background wait inherited the request's
thread executor, which had quit by the time the run ended ("CurrentThreadExecutor already quit")."""

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from debates.integrations.telegram.config import Config
from tests.browser.conftest import daphne
from tests.fakes.provider_server import FakeProviderServer, Script
from tests.fakes.telegram_server import FakeTelegramServer
from tests.telegram.conftest import ALLOWED, TOKEN
from tests.waiting import wait_for

ROOT = Path(__file__).resolve().parents[2]
SEED = "from tests.fakes.roster import make_panel\nmake_panel({base_url!r})\n"
VERDICT = "## Verdict\nUse read replicas.\n\nVERDICT: Use read replicas.\nCONFIDENCE: 0.8\n"


@pytest.fixture(scope="module")
def served(provider_server: FakeProviderServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple]:
    with FakeTelegramServer(TOKEN) as telegram:
        data = tmp_path_factory.mktemp("teorema-telegram")
        env = {k: v for k, v in os.environ.items() if not k.startswith(("DATABASE_URL", "REDIS_URL", "TEOREMA_"))}
        env |= {"TEOREMA_DATA_DIR": str(data), "DJANGO_SETTINGS_MODULE": "teorema.settings", "PYTHONPATH": str(ROOT)}
        env |= {"TELEGRAM_BOT_TOKEN": TOKEN, "TELEGRAM_ALLOWED_CHAT_IDS": str(ALLOWED)}
        env |= {"TELEGRAM_API_BASE": telegram.url, "TELEGRAM_WEBHOOK_SECRET": "webhook-secret-for-tests-0123"}
        manage = [sys.executable, str(ROOT / "manage.py")]
        subprocess.run([*manage, "migrate", "--no-input", "-v0"], cwd=ROOT, env=env, check=True)
        seed = SEED.format(base_url=provider_server.base_url("openai"))
        subprocess.run([*manage, "shell", "-v0", "-c", seed], cwd=ROOT, env=env, check=True)
        with daphne(env, data) as url:
            yield url, telegram, Config.from_env(env)


def post(url: str, config: Config, update: dict) -> int:
    headers = {"X-Telegram-Bot-Api-Secret-Token": config.webhook_secret}
    return httpx.post(f"{url}/telegram/webhook/{config.webhook_secret}/", json=update, headers=headers).status_code


@pytest.fixture
def scripted(fake_provider: FakeProviderServer) -> FakeProviderServer:
    for family in ("alpha", "beta", "gamma"):
        fake_provider.script(f"model-{family}", f"{family}: add read replicas.\n\nANSWER: Add read replicas")
    fake_provider.script("model-moderator", Script(answer=VERDICT))
    return fake_provider


@pytest.mark.parametrize("with_file", [False, True], ids=["text", "a document"])
async def test_a_question_posted_to_the_webhook_is_answered_with_its_verdict(served, scripted, with_file):
    url, telegram, config = served
    telegram.sent.clear()
    if with_file:
        telegram.document(ALLOWED, "load.csv", b"month,reads,writes\njan,900,100\n", caption="Replicas or shards?")
    else:
        telegram.message(ALLOWED, "Replicas or shards?")
    for update in telegram.taken():
        assert post(url, config, update) == 200
    await wait_for(
        lambda: any("Use read replicas" in text for text in telegram.texts(ALLOWED)), "the verdict sent", 120
    )
    said = telegram.texts(ALLOWED)
    assert said[0].startswith("Running…")
    assert sum("Use read replicas" in text for text in said) == 1  # sent once
    if with_file:
        asked = scripted.requests_for("model-alpha")[0].prompt
        assert "jan,900,100" in asked
