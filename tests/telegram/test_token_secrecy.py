"""The bot token never reaches a log line, stdout or stderr, even when every logger is at DEBUG
and Telegram fails."""

import logging
from io import StringIO

import pytest
from django.core.management import call_command
from telegram.error import NetworkError

from debates.integrations.telegram import poll as polling
from debates.integrations.telegram.config import Config
from tests.fakes.telegram_server import FakeTelegramServer
from tests.telegram.conftest import ALLOWED, TOKEN
from tests.telegram.test_bot import poll_until

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("panel", "submitted")]
SECRET_PART = TOKEN.split(":")[1]


@pytest.fixture
def everything_at_debug(caplog: pytest.LogCaptureFixture, config: Config) -> pytest.LogCaptureFixture:
    """The worst configuration: httpx (request URLs) and python-telegram-bot (its base URL) at DEBUG."""
    for name in ("", "httpx", "httpcore", "telegram", "debates"):
        caplog.set_level(logging.DEBUG, logger=name)
    return caplog


def assert_no_token(*texts: str) -> None:
    for text in texts:
        assert SECRET_PART not in text


async def test_polling_with_failures_never_logs_the_token(
    telegram: FakeTelegramServer,
    config: Config,
    everything_at_debug: pytest.LogCaptureFixture,
    capfd: pytest.CaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(polling, "RETRY_S", (0.05,))
    telegram.fail_next("getUpdates")  # the poll loop's error path
    telegram.fail_next("sendMessage")  # an update whose answer fails: logged with its traceback
    telegram.message(ALLOWED, "Is 91 prime?")
    telegram.message(ALLOWED, "/help")
    await poll_until(config, lambda: len(telegram.sent) >= 1)
    records = everything_at_debug.records
    assert any("HTTP Request" in r.getMessage() for r in records), "httpx did log the URLs, redacted"
    assert any("getUpdates failed" in r.getMessage() for r in records)
    assert any(r.exc_info for r in records), "the failed answer was logged with its traceback"
    out, err = capfd.readouterr()
    assert_no_token(everything_at_debug.text, out, err, *(r.getMessage() for r in records))
    assert_no_token(*(r.exc_text or "" for r in records))


async def test_an_unreachable_telegram_never_logs_the_token(
    config: Config, everything_at_debug: pytest.LogCaptureFixture, capfd: pytest.CaptureFixture
) -> None:
    unreachable = Config(config.token, config.allowed_chat_ids, api_base="http://127.0.0.1:9")
    with pytest.raises(NetworkError) as failure:
        await poll_until(unreachable, lambda: False, seconds=5)
    out, err = capfd.readouterr()
    assert_no_token(everything_at_debug.text, out, err, str(failure.value), repr(unreachable))


def test_the_poll_command_reports_a_refused_token_in_words(
    telegram: FakeTelegramServer, config: Config, everything_at_debug: pytest.LogCaptureFixture, monkeypatch
) -> None:
    monkeypatch.setenv("TELEGRAM_BOT_TOKEN", "999:not-the-right-token")
    out = StringIO()
    with pytest.raises(Exception, match="Telegram refused") as failure:
        call_command("telegram_poll", stdout=out, stderr=out)
    assert_no_token(everything_at_debug.text, out.getvalue(), str(failure.value))
    assert "not-the-right-token" not in everything_at_debug.text + str(failure.value)


def test_the_command_registers_the_webhook_with_its_secret(telegram: FakeTelegramServer, config: Config) -> None:
    out = StringIO()
    call_command("telegram_poll", "--set-webhook", stdout=out)
    assert telegram.webhook["url"] == f"http://127.0.0.1:8000/telegram/webhook/{config.webhook_secret}/"
    assert telegram.webhook["secret_token"] == config.webhook_secret
    assert_no_token(out.getvalue())
