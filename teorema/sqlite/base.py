"""Django's SQLite backend, with the connection of a thread that ends kept for the next thread.

Under ASGI each request runs on a thread of its own, which opens a connection and closes it at the
request's end (debates.apps.close_request_connections). Opening one is cheap for SQLite itself
(25 µs) but not for Django, which registers its SQL functions and runs its pragmas on each: 0.6 ms
of CPU, the largest single cost of a script's question after the queries. A closed connection that
is healthy (no error on it, no transaction open) waits here instead, and the next thread takes it
as it is, checked to be of the same database file (one replaced or deleted meanwhile is not).
"""

import os
import sqlite3
import threading
from typing import Any

from django.db.backends.sqlite3 import base

IDLE_AT_MOST = 8  # connections kept per database: more threads than this at once are rare


class DatabaseWrapper(base.DatabaseWrapper):
    _idle: dict[str, list[tuple[sqlite3.Connection, tuple[int, int]]]] = {}
    _lock = threading.Lock()

    def get_new_connection(self, conn_params: dict[str, Any]) -> sqlite3.Connection:
        name = str(conn_params["database"])
        file = _identity(name)
        while (kept := self._take(name)) is not None:
            connection, of = kept
            if of == file:
                return connection
            connection.close()  # another file now has that name
        return super().get_new_connection(conn_params)

    def _take(self, name: str) -> tuple[sqlite3.Connection, tuple[int, int]] | None:
        with self._lock:
            idle = self._idle.get(name)
            return idle.pop() if idle else None

    def _close(self) -> None:
        connection = self.connection
        name = str(self.settings_dict["NAME"])
        file = _identity(name)
        if connection is None or self.errors_occurred or connection.in_transaction or file is None:
            super()._close()  # type: ignore[misc]  # not in the stubs
            return
        with self._lock:
            idle = self._idle.setdefault(name, [])
            if len(idle) < IDLE_AT_MOST:
                idle.append((connection, file))
                return
        super()._close()  # type: ignore[misc]  # not in the stubs


def _identity(name: str) -> tuple[int, int] | None:
    """The database file's device and inode (None: not a file, as an in-memory database is not)."""
    try:
        found = os.stat(name)
    except (OSError, ValueError):
        return None
    return found.st_dev, found.st_ino
