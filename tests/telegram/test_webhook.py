"""The webhook answers Telegram only when both secrets match; anyone else sees a missing page."""

import pytest
from django.test import AsyncClient

from debates.integrations.telegram.config import Config
from debates.models import Question
from tests.fakes.telegram_server import FakeTelegramServer
from tests.telegram.conftest import ALLOWED

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("panel")]

UPDATE = {
    "update_id": 1,
    "message": {
        "message_id": 1,
        "date": 0,
        "chat": {"id": ALLOWED, "type": "private"},
        "from": {"id": ALLOWED, "is_bot": False, "first_name": "Asker"},
        "text": "Is 91 prime?",
    },
}


async def post(secret: str, header: str | None, body: object = UPDATE) -> int:
    headers = {"X-Telegram-Bot-Api-Secret-Token": header} if header is not None else {}
    response = await AsyncClient().post(
        f"/telegram/webhook/{secret}/", body, content_type="application/json", headers=headers
    )
    return response.status_code


async def test_an_update_with_both_secrets_is_answered(
    telegram: FakeTelegramServer, config: Config, submitted: list[Question]
) -> None:
    assert await post(config.webhook_secret, config.webhook_secret) == 200
    [question] = submitted
    assert telegram.texts(ALLOWED) == [f"Running… http://127.0.0.1:8000/q/{question.pk}/"]


@pytest.mark.parametrize(
    ("path_secret", "header"),
    [("right", "wrong"), ("wrong", "right"), ("right", None), ("wrong", "wrong")],
)
async def test_a_wrong_or_missing_secret_is_a_404_and_nothing_runs(
    telegram: FakeTelegramServer, config: Config, submitted: list[Question], path_secret: str, header: str | None
) -> None:
    def secret(which: str | None) -> str | None:
        return config.webhook_secret if which == "right" else which

    assert await post(secret(path_secret), secret(header)) == 404
    assert submitted == []
    assert telegram.sent == []


async def test_the_webhook_secret_is_not_the_token(config: Config) -> None:
    assert config.token not in config.webhook_secret
    assert config.token.split(":")[1] not in config.webhook_secret


async def test_without_a_token_configured_the_webhook_does_not_exist(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TELEGRAM_BOT_TOKEN", raising=False)
    assert await post("anything", "anything") == 404


async def test_a_body_that_is_not_json_is_a_400(config: Config) -> None:
    response = await AsyncClient().post(
        f"/telegram/webhook/{config.webhook_secret}/",
        "not json",
        content_type="application/json",
        headers={"X-Telegram-Bot-Api-Secret-Token": config.webhook_secret},
    )
    assert response.status_code == 400


async def test_only_post_is_accepted(config: Config) -> None:
    response = await AsyncClient().get(f"/telegram/webhook/{config.webhook_secret}/")
    assert response.status_code == 405
