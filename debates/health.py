"""The probes: is this process alive (``/livez``), and can it serve (``/readyz``, also ``/healthz``)?

``/livez`` needs nothing but the process and its event loop: a restart is the cure only for a process
that no longer answers, never for a database that is down (restarting every web process would not
bring it back). ``/readyz`` checks what every page needs, the database, and what every live debate
needs, the channel layer (a message sent to a fresh channel comes back).

Busy is not down: a burst of probes (a whole tier's balancers at once) shares one check of each
kind, so 200 probes cost one query and one round trip, not 200 queued behind each other, and a
probe's answer waits only for the check in flight, never for other probes. Anyone may ask: a probe has no login, so
the view reads no session and is never rate limited; production exempts it from the HTTPS
redirect (settings). Why a check failed goes to the log, not to whoever asked.

The checks run side by side and the answer comes within TIMEOUT whatever is down: a probe gives
up after 1-5 s, and a web tier whose probes time out is marked dead, not degraded.
"""

import asyncio
import logging
import uuid
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor

from channels.layers import get_channel_layer
from django.db import connection
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe

log = logging.getLogger(__name__)

TIMEOUT = 0.8  # seconds for every check: a hung database or Redis fails the probe, not hangs it
# The database is asked on threads of their own, and a check past TIMEOUT is left to end there by
# itself (within the pool's wait): asgiref's sync_to_async waits for a call it was asked to cancel.
# Two threads: probes that come while both are stuck queue and time out, never pile up threads.
DATABASE_THREADS = ThreadPoolExecutor(max_workers=2, thread_name_prefix="teorema-healthz")


class Shared:
    """One run of a check at a time, on each event loop: a probe that comes while it runs waits for
    its outcome instead of starting another. A probe that gives up leaves it running for the next."""

    def __init__(self, check: Callable[[], Awaitable[None]]) -> None:
        self.check = check
        self.running: dict[asyncio.AbstractEventLoop, asyncio.Future] = {}

    async def __call__(self) -> None:
        loop = asyncio.get_running_loop()
        running = self.running.get(loop)
        if running is None or running.done():
            running = self.running[loop] = asyncio.ensure_future(self.check())
            running.add_done_callback(self._ended)
        await asyncio.shield(running)

    def _ended(self, done: asyncio.Future) -> None:
        if self.running.get(done.get_loop()) is done:
            del self.running[done.get_loop()]  # a closed loop (a test's) is not kept
        if not done.cancelled():
            done.exception()  # read: whoever waited has logged it, or nobody waited any more


def _query_database() -> None:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    finally:
        connection.close()  # this thread's connection goes back to the pool


async def _database() -> None:
    await asyncio.get_running_loop().run_in_executor(DATABASE_THREADS, _query_database)


async def _channel_layer() -> None:
    layer = get_channel_layer()
    channel = await layer.new_channel("healthz.")
    token = uuid.uuid4().hex
    await layer.send(channel, {"type": "healthz.ping", "token": token})
    if (await layer.receive(channel)).get("token") != token:
        raise RuntimeError("the channel layer returned another message")


CHECKS: dict[str, Callable[[], Awaitable[None]]] = {
    "database": Shared(_database),
    "channel_layer": Shared(_channel_layer),
}


async def _outcome(name: str, check: Callable[[], Awaitable[None]]) -> str:
    try:
        async with asyncio.timeout(TIMEOUT):
            await check()
    except Exception as error:
        # One line, not a traceback: a probe asks every few seconds while the fault lasts.
        log.warning("healthz: the %s check failed: %r", name, error)
        return "failed"
    return "ok"


@never_cache
@require_safe
async def livez(request: HttpRequest) -> JsonResponse:
    """200 while the process answers at all: it reads nothing, so only a stuck process fails it."""
    return JsonResponse({"status": "alive"})


@never_cache
@require_safe
async def readyz(request: HttpRequest) -> JsonResponse:
    """200 ``{"status": "ok", …}`` when every check passes, else 503 naming the ones that failed."""
    outcomes = await asyncio.gather(*(_outcome(name, check) for name, check in CHECKS.items()))
    results = dict(zip(CHECKS, outcomes, strict=True))
    healthy = all(result == "ok" for result in results.values())
    return JsonResponse({"status": "ok" if healthy else "failed", **results}, status=200 if healthy else 503)
