"""Run the Telegram channel by long polling (no public URL needed), or register the webhook."""

import asyncio

from django.core.exceptions import ImproperlyConfigured
from django.core.management.base import BaseCommand, CommandError
from django.urls import reverse
from telegram.error import TelegramError

from debates.integrations.telegram.config import Config, redacted
from debates.integrations.telegram.poll import poll


class Command(BaseCommand):
    help = "Answer Telegram questions by long polling (Ctrl-C stops), or --set-webhook and exit."

    def add_arguments(self, parser) -> None:
        parser.add_argument(
            "--set-webhook",
            action="store_true",
            help="Register TEOREMA_PUBLIC_URL's webhook with Telegram instead of polling.",
        )

    def handle(self, *args, set_webhook: bool = False, **options) -> None:
        try:
            config = Config.from_env()
        except ImproperlyConfigured as error:
            raise CommandError(str(error)) from None
        try:
            if set_webhook:
                if not config.public_url:
                    raise CommandError(
                        "Set TEOREMA_PUBLIC_URL to the address Telegram reaches this site at (https://…)."
                    )
                asyncio.run(register_webhook(config))
                self.stdout.write(f"Webhook registered at {config.public_url}/telegram/webhook/…/")
                return
            self.stdout.write(f"Polling Telegram for chats {sorted(config.allowed_chat_ids)}; Ctrl-C stops.")
            asyncio.run(poll(config))
        except TelegramError as error:
            raise CommandError(f"Telegram refused: {redacted(str(error))}") from None
        except KeyboardInterrupt:
            self.stdout.write("Stopped.")


async def register_webhook(config: Config) -> None:
    path = reverse("debates:telegram_webhook", args=[config.webhook_secret])
    async with config.bot() as bot:
        await bot.set_webhook(
            f"{config.public_url}{path}",
            secret_token=config.webhook_secret,
            allowed_updates=["message", "callback_query"],
        )
