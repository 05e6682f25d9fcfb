"""Long polling: the Telegram channel for a machine that Telegram cannot reach by webhook."""

import asyncio
import contextlib
import logging

from telegram import Bot
from telegram.error import TelegramError

from debates.integrations.telegram.bot import handle
from debates.integrations.telegram.config import Config

log = logging.getLogger(__name__)

LONG_POLL_S = 25
RETRY_S = (1, 2, 5, 10, 30)


async def poll(config: Config, stop: asyncio.Event | None = None, long_poll_s: int = LONG_POLL_S) -> None:
    """Fetch and answer updates until ``stop`` is set; a failing Telegram is retried, never fatal."""
    stop = stop or asyncio.Event()
    async with config.bot() as bot:
        await bot.delete_webhook()  # Telegram refuses getUpdates while a webhook is set
        offset, confirmed, failures = 0, 0, 0
        try:
            while not stop.is_set():
                try:
                    updates = await bot.get_updates(
                        offset=offset, timeout=long_poll_s, allowed_updates=["message", "callback_query"]
                    )
                except TelegramError as error:
                    wait = RETRY_S[min(failures, len(RETRY_S) - 1)]
                    failures += 1
                    log.warning("Telegram getUpdates failed (%s); trying again in %d s.", error, wait)
                    await wait_or_stop(stop, wait)
                    continue
                confirmed, failures = offset, 0
                for update in updates:
                    offset = update.update_id + 1
                    try:
                        await handle(update, config, bot)
                    except Exception:
                        log.exception("Could not answer update %s; going on with the next.", update.update_id)
        finally:
            if offset > confirmed:
                await confirm(bot, offset)


async def confirm(bot: Bot, offset: int) -> None:
    """Tell Telegram the answered updates are done, or the next start would answer them again.

    Telegram forgets an update only when getUpdates is called with a higher offset; a poller
    stopped right after answering has not made that call yet.
    """
    try:
        await bot.get_updates(offset=offset, timeout=0, limit=1)
    except TelegramError as error:
        log.warning("Could not confirm the answered updates (%s): a restart may answer them again.", error)


async def wait_or_stop(stop: asyncio.Event, seconds: float) -> None:
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(stop.wait(), seconds)
