"""Daphne on uvloop: ``python -m teorema.serve`` takes Daphne's own arguments, and ``--prepare``.

``--prepare`` (``make run``) migrates when a migration is pending and bootstraps (``manage.py
bootstrap``) in this process before serving: one Django start where ``make run`` made three, each a
second or more (docs/benchmarks.md).

Daphne creates its event loop when it is imported, so the policy is set before that import.
Under load asyncio's pure-Python loop is a large share of the process's CPU; uvloop runs the
same loop in C and Twisted's asyncio reactor works on it unchanged.

The GIL's switch interval is 2 ms, not CPython's 5. The runs' writes, the API and the viewers'
snapshots run on threads beside the event loop, and each SQLite call there gives the GIL up and
then waits for the busy loop to hand it back, up to one interval per call: a vote's write could
take many times its own CPU, and a round's first words (shown after the votes before them) or a
late viewer's snapshot waited with it. docs/benchmarks-history.md (fifth pass) has the figures.

Writes go to the socket at once (``write_at_once``), and the listen queue holds ``BACKLOG``
connections, not Twisted's 50 (``with_backlog``). A status Twisted has no words for (422, 424)
gets the standard ones, not "Unknown Status" (``reason_phrases``). A websocket may take
``HANDSHAKE_S`` to be accepted, not Daphne's command line's 5 s (``with_handshake_time``).
"""

import asyncio
import os
import sys
from http import HTTPStatus
from typing import Any

import uvloop
from twisted.internet import tcp
from twisted.web import http as web

asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())

import daphne.cli  # noqa: E402  (after the policy: Daphne makes its loop at import)
from daphne.cli import CommandLineInterface  # noqa: E402
from daphne.endpoints import build_endpoint_description_strings  # noqa: E402

PREPARE = "--prepare"  # ours, taken out before Daphne reads the arguments
SWITCH_INTERVAL = 0.002  # seconds
# Connections the kernel holds for the server to accept (it caps this at net.core.somaxconn).
BACKLOG = 1024
# Seconds a websocket may take from its connection to its accept (Daphne's Server's own default;
# its command line's is 5 s). A page's socket is accepted once its snapshot is read, and a burst of
# debates starting on a busy box can hold that past 5 s: Daphne then drops the socket, logs "Attempt
# to send on a closed protocol" when the accept comes, and the browser reconnects to do it all again.
HANDSHAKE_S = 20
_buffered_write = tcp.Connection.write


def write_at_once(self: tcp.Connection, data: bytes) -> None:
    """Send ``data`` now when nothing written before it is still waiting.

    Twisted's transport buffers every write until a later turn of the reactor finds the socket
    writable: each websocket message (a voice's first words, say) would wait for a turn of the
    busy event loop and cost two more epoll calls. What the socket does not take now goes the
    usual way, as does every write behind it, so the order holds. TLS started on the connection,
    and a pull producer (which the reactor asks for more as its buffer empties), keep Twisted's
    path. It reads Twisted's private fields: Twisted is pinned, and tests/test_serve.py checks
    them on a connection Twisted made. docs/benchmarks-history.md (seventh and ninth passes) has what it saves.
    """
    if (
        type(data) is bytes
        and self.connected
        and not (self.TLS or self.disconnecting or self._writeDisconnected or self._tempDataBuffer)
        and self.offset == len(self.dataBuffer)
        and (self.producer is None or self.streamingProducer)
    ):
        try:
            sent = self.socket.send(data)
        except OSError:  # it would block, or the peer is gone: the reactor's write finds out
            sent = 0
        data = data[sent:]
        if not data:
            return
    _buffered_write(self, data)


def with_backlog(**where: Any) -> list[str]:
    """Daphne's endpoints for ``-b``/``-p``, ``-u`` or ``--fd``, each with a listen queue of ``BACKLOG``.

    Twisted listens with a queue of 50: past that the kernel drops a new connection's SYN and the
    client tries again 1 s later (then at 3 s, then 7 s). A hundred questions posted at once, or a
    shared debate's viewers reconnecting after a restart, waited that second: 57 of 100 requests
    sent at once were dropped so (docs/benchmarks-history.md, twelfth pass). An ``-e`` endpoint keeps what
    it says.
    """
    described = build_endpoint_description_strings(**where)
    return [f"{d}:backlog={BACKLOG}" if d.startswith(("tcp:", "unix:")) else d for d in described]


def reason_phrases() -> None:
    """Every standard status's reason phrase in Twisted's table, which stops at its own list."""
    for status in HTTPStatus:
        web.RESPONSES.setdefault(status.value, status.phrase.encode())


def prepare() -> None:
    """What ``manage.py migrate`` and ``manage.py bootstrap`` would do, here: the migrations only
    when one is pending (reading the plan costs a fraction of a start)."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "teorema.settings")
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    executor = MigrationExecutor(connection)
    if executor.migration_plan(executor.loader.graph.leaf_nodes()):
        call_command("migrate", interactive=False)
    call_command("bootstrap")
    connection.close()  # the server's threads open their own


def with_handshake_time(argv: list[str]) -> list[str]:
    """Daphne's arguments with ``HANDSHAKE_S`` as its websocket connect time, unless they give one."""
    if any(arg.split("=")[0] == "--websocket_connect_timeout" for arg in argv):
        return argv
    return [argv[0], "--websocket_connect_timeout", str(HANDSHAKE_S), *argv[1:]]


def main() -> None:
    if PREPARE in sys.argv:
        sys.argv.remove(PREPARE)
        prepare()
    sys.argv = with_handshake_time(sys.argv)
    sys.setswitchinterval(SWITCH_INTERVAL)
    reason_phrases()
    tcp.Connection.write = write_at_once  # type: ignore[method-assign,assignment]
    daphne.cli.build_endpoint_description_strings = with_backlog
    CommandLineInterface.entrypoint()


if __name__ == "__main__":
    main()
