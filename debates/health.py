"""/healthz: can this process serve? For a load balancer, or compose's healthcheck.

It checks what every page needs, the database, and what every live debate needs, the channel
layer (a message sent to a fresh channel comes back). Anyone may ask: a probe has no login, so
the view reads no session and is never rate limited; production exempts it from the HTTPS
redirect (settings). Why a check failed goes to the log, not to whoever asked.
"""

import asyncio
import logging
import uuid
from collections.abc import Awaitable, Callable

from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer
from django.db import connection
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe

log = logging.getLogger(__name__)

TIMEOUT = 3.0  # seconds per check: a hung database or Redis must fail the probe, not hang it


def _query_database() -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        cursor.fetchone()


async def _database() -> None:
    await sync_to_async(_query_database)()


async def _channel_layer() -> None:
    layer = get_channel_layer()
    channel = await layer.new_channel("healthz.")
    token = uuid.uuid4().hex
    await layer.send(channel, {"type": "healthz.ping", "token": token})
    if (await layer.receive(channel)).get("token") != token:
        raise RuntimeError("the channel layer returned another message")


CHECKS: dict[str, Callable[[], Awaitable[None]]] = {"database": _database, "channel_layer": _channel_layer}


@never_cache
@require_safe
async def healthz(request: HttpRequest) -> JsonResponse:
    """200 ``{"status": "ok", …}`` when every check passes, else 503 naming the ones that failed."""
    results = {}
    for name, check in CHECKS.items():
        try:
            async with asyncio.timeout(TIMEOUT):
                await check()
        except Exception as error:
            # One line, not a traceback: a probe asks every few seconds while the fault lasts.
            log.warning("healthz: the %s check failed: %r", name, error)
            results[name] = "failed"
        else:
            results[name] = "ok"
    healthy = all(result == "ok" for result in results.values())
    return JsonResponse({"status": "ok" if healthy else "failed", **results}, status=200 if healthy else 503)
