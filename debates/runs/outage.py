"""The database going away and coming back (a restart, a failover), as a runner lives through it.

Django never reopens a connection the server dropped: every later query on it fails, until
something closes it. A runner (a worker, or the single process) keeps its connection for
hours, so it closes a dropped one itself and goes on: a paid-for contribution is written once
the database answers again, not lost (its call would be paid twice when the run resumes), and
a worker's loop outlives the outage instead of exiting with every run it held.
"""

import contextlib
import logging
import time
from collections.abc import AsyncIterator, Callable

from asgiref.sync import sync_to_async
from django.conf import settings
from django.db import InterfaceError, OperationalError, close_old_connections, connection

log = logging.getLogger(__name__)

UNREACHABLE = (OperationalError, InterfaceError)
RETRY_EVERY = 0.25  # seconds between two tries of a write while the database is away


# Told when a write of this process starts waiting for the database (True) and once it went
# through (False): every run here waits with it, their writes queued behind it on one thread.
_listeners: set[Callable[[bool], None]] = set()


def listen(tell: Callable[[bool], None]) -> Callable[[], None]:
    """Have ``tell`` called (from the writing thread) as the database goes away and comes back;
    returns what stops it."""
    _listeners.add(tell)
    return lambda: _listeners.discard(tell)


def _tell(away: bool) -> None:
    for tell in tuple(_listeners):
        tell(away)


def reconnecting[T](write: Callable[[], T], patience: float = settings.TEOREMA["LEASE_SECONDS"]) -> T:
    """``write()``, tried again while the database is unreachable, for up to ``patience`` seconds
    (the lease: past it another runner may hold the run). An error of a database that answers
    (a constraint, a full disk) is raised at once. The listeners are told (``listen``)."""
    deadline = time.monotonic() + patience
    away = False
    while True:
        try:
            done = write()
        except UNREACHABLE as error:
            if connection.in_atomic_block or connection.is_usable() or time.monotonic() > deadline:
                raise
            if not away:
                away = True
                log.warning("a write waits for the database (%s), for up to %gs", str(error).strip(), patience)
                _tell(True)
            connection.close()  # the next try opens a new one
            time.sleep(RETRY_EVERY)
        else:
            if away:
                log.warning("the database answers again: the write went through")
                _tell(False)
            return done


@contextlib.asynccontextmanager
async def riding_out(what: str) -> AsyncIterator[None]:
    """Suppress an unreachable database's error in the block (``what`` it was doing, for the
    log) and close the dropped connection: the caller tries again on its next turn."""
    try:
        yield
    except UNREACHABLE as error:
        log.warning("%s: the database is unreachable (%s); trying again", what, str(error).strip())
        await sync_to_async(close_old_connections)()
