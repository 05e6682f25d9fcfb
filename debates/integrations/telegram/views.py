"""The webhook Telegram calls with each update, guarded by a secret in the path and a header."""

import json
import logging
from hmac import compare_digest

from django.core.exceptions import ImproperlyConfigured
from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest, HttpResponseNotFound
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_POST
from telegram import Update
from telegram.error import TelegramError

from debates.integrations.telegram.bot import handle
from debates.integrations.telegram.config import Config

log = logging.getLogger(__name__)
SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"


@csrf_exempt
@require_POST
async def webhook(request: HttpRequest, secret: str) -> HttpResponse:
    """Answer one update. Wrong secrets look like a missing page; Telegram errors still get 200
    (Telegram would otherwise resend the update again and again)."""
    try:
        config = Config.from_env()
    except ImproperlyConfigured:
        return HttpResponseNotFound()
    header = request.headers.get(SECRET_HEADER, "")
    if not (compare_digest(secret, config.webhook_secret) and compare_digest(header, config.webhook_secret)):
        log.warning("Refused a Telegram webhook call with a wrong secret.")
        return HttpResponseNotFound()
    try:
        data = json.loads(request.body)
    except ValueError:
        return HttpResponseBadRequest("The body is not JSON.")
    async with config.bot() as bot:
        try:
            await handle(Update.de_json(data, bot), config, bot)
        except TelegramError as error:
            log.warning("Could not answer a Telegram update: %s", error)
    return HttpResponse()
