"""PostgreSQL's connection pool (psycopg-pool, as settings.py configures it) after a server restart."""

from typing import Any

from django.db import DEFAULT_DB_ALIAS, connections
from psycopg_pool import ConnectionPool


def check(connection: Any) -> None:
    """The pool's check of each connection it hands out (psycopg-pool's own). One that is dead
    means PostgreSQL restarted since it was pooled, so every connection pooled with it is dead
    too: they are all replaced at once. The pool would otherwise try them one by one, waiting
    a second, then two, between two tries, and a request past its wait would be answered 503
    by a database that is back."""
    try:
        ConnectionPool.check_connection(connection)
    except Exception:
        connections[DEFAULT_DB_ALIAS].pool.drain()  # type: ignore[attr-defined]  # PostgreSQL's wrapper has one
        raise
