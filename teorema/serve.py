"""Daphne on uvloop: ``python -m teorema.serve`` takes Daphne's own arguments.

Daphne creates its event loop when it is imported, so the policy is set before that import.
Under load asyncio's pure-Python loop is a large share of the process's CPU; uvloop runs the
same loop in C and Twisted's asyncio reactor works on it unchanged.

The GIL's switch interval is 2 ms, not CPython's 5. The runs' writes, the API and the viewers'
snapshots run on threads beside the event loop, and each SQLite call there gives the GIL up and
then waits for the busy loop to hand it back, up to one interval per call: a vote's write could
take many times its own CPU, and a round's first words (shown after the votes before them) or a
late viewer's snapshot waited with it. docs/benchmarks.md (fifth pass) has the figures.

Writes go to the socket at once (``write_at_once``).
"""

import asyncio
import sys

import uvloop
from twisted.internet import tcp

asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())

from daphne.cli import CommandLineInterface  # noqa: E402  (after the policy: Daphne makes its loop at import)

SWITCH_INTERVAL = 0.002  # seconds
_buffered_write = tcp.Connection.write


def write_at_once(self: tcp.Connection, data: bytes) -> None:
    """Send ``data`` now when nothing written before it is still waiting.

    Twisted's transport buffers every write until a later turn of the reactor finds the socket
    writable: each websocket message (a voice's first words, say) would wait for a turn of the
    busy event loop and cost two more epoll calls. What the socket does not take now goes the
    usual way, as does every write behind it, so the order holds. TLS started on the connection,
    and a pull producer (which the reactor asks for more as its buffer empties), keep Twisted's
    path. It reads Twisted's private fields: Twisted is pinned, and tests/test_serve.py checks
    them on a connection Twisted made. docs/benchmarks.md has what it saves.
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


def main() -> None:
    sys.setswitchinterval(SWITCH_INTERVAL)
    tcp.Connection.write = write_at_once  # type: ignore[method-assign,assignment]
    CommandLineInterface.entrypoint()


if __name__ == "__main__":
    main()
