"""The Telegram channel's settings, from the environment, and the guard that keeps the token out of logs.

The Bot API puts the token in every URL (``/bot<token>/sendMessage``); httpx logs URLs at INFO
and python-telegram-bot logs its base URL at DEBUG. Levels alone depend on how logging is
configured, so every log record is also scrubbed of the token when it is created.
"""

import hashlib
import hmac
import logging
import os
from collections.abc import Mapping
from dataclasses import dataclass

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from telegram import Bot

from debates.represent import public_url

API_BASE = "https://api.telegram.org"
REDACTED = "<telegram-token>"
_secrets: set[str] = set()


@dataclass(frozen=True)
class Config:
    token: str
    allowed_chat_ids: frozenset[int]
    api_base: str = API_BASE
    public_url: str = ""  # the site's address (TEOREMA_PUBLIC_URL): links and the webhook need it
    webhook_secret_override: str = ""

    @classmethod
    def from_env(cls, environ: Mapping[str, str] = os.environ) -> "Config":
        """Read TELEGRAM_* (and the site's address, settings' TEOREMA_PUBLIC_URL); a missing token or a bad
        chat id is an error in words."""
        token = environ.get("TELEGRAM_BOT_TOKEN", "").strip()
        if not token:
            raise ImproperlyConfigured("TELEGRAM_BOT_TOKEN is not set: ask @BotFather for one.")
        raw_ids = [item.strip() for item in environ.get("TELEGRAM_ALLOWED_CHAT_IDS", "").split(",") if item.strip()]
        try:
            chat_ids = frozenset(int(item) for item in raw_ids)
        except ValueError as error:
            raise ImproperlyConfigured(
                f"TELEGRAM_ALLOWED_CHAT_IDS must be numbers, comma-separated ({error})."
            ) from None
        redact_from_logs(token)
        return cls(
            token=token,
            allowed_chat_ids=chat_ids,
            api_base=environ.get("TELEGRAM_API_BASE", "").rstrip("/") or API_BASE,
            public_url=settings.TEOREMA["PUBLIC_URL"],
            webhook_secret_override=environ.get("TELEGRAM_WEBHOOK_SECRET", ""),
        )

    @property
    def webhook_secret(self) -> str:
        """The webhook's path and header secret: configured, or derived from the token (stable, not the token)."""
        if self.webhook_secret_override:
            return self.webhook_secret_override
        return hmac.new(self.token.encode(), b"teorema-telegram-webhook", hashlib.sha256).hexdigest()[:40]

    def link(self, question_id: int) -> str:
        """The question's page, or "" when the site's address is not configured."""
        return public_url(f"/q/{question_id}/", self.public_url)

    def bot(self) -> Bot:
        """A Bot for ``async with``: one per event loop, as its HTTP client is bound to the loop."""
        return Bot(self.token, base_url=f"{self.api_base}/bot", base_file_url=f"{self.api_base}/file/bot")

    def __repr__(self) -> str:  # a Config in a traceback or a log line must not show the token
        return f"Config(chat_ids={sorted(self.allowed_chat_ids)}, api_base={self.api_base!r})"


def redact_from_logs(secret: str) -> None:
    """From now on, every log record has ``secret`` replaced, in its message and its traceback."""
    if not _secrets:
        factory = logging.getLogRecordFactory()

        def scrubbing_factory(*args, **kwargs) -> logging.LogRecord:
            return scrub(factory(*args, **kwargs))

        logging.setLogRecordFactory(scrubbing_factory)
    _secrets.add(secret)
    for name in ("httpx", "httpcore"):  # their INFO/DEBUG lines are request URLs
        logger = logging.getLogger(name)
        logger.setLevel(max(logger.getEffectiveLevel(), logging.WARNING))


def redacted(text: str) -> str:
    """``text`` with every configured token replaced (python-telegram-bot quotes a rejected token)."""
    for secret in _secrets:
        text = text.replace(secret, REDACTED)
    return text


def scrub(record: logging.LogRecord) -> logging.LogRecord:
    try:
        message = record.getMessage()
    except Exception:  # a malformed record is logging's problem to report, not ours
        return record
    if record.exc_info and not record.exc_text:
        record.exc_text = logging.Formatter().formatException(record.exc_info)
    if redacted(message) != message:
        record.msg, record.args = redacted(message), ()
    if record.exc_text:
        record.exc_text = redacted(record.exc_text)
    return record
