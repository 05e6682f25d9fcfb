"""teorema.serve.write_at_once: Daphne's transport sends at once, and keeps Twisted's order.

A real socket pair; the reactor stands in as the set of descriptors waiting to write, which a
test drains by hand the way the reactor would (``doWrite`` while the socket is writable).
"""

import socket

import pytest
from twisted.internet import main, tcp
from twisted.internet.protocol import Protocol

from teorema.serve import write_at_once


class Reactor:
    """What a transport asks of its reactor (IReactorFDSet)."""

    def __init__(self) -> None:
        self.readers: set = set()
        self.writers: set = set()

    def addReader(self, reader) -> None:
        self.readers.add(reader)

    def removeReader(self, reader) -> None:
        self.readers.discard(reader)

    def addWriter(self, writer) -> None:
        self.writers.add(writer)

    def removeWriter(self, writer) -> None:
        self.writers.discard(writer)


@pytest.fixture
def wire(monkeypatch):
    """(transport, its reactor, the peer's socket)."""
    monkeypatch.setattr(tcp.Connection, "write", write_at_once)
    ours, peer = socket.socketpair()
    reactor = Reactor()
    transport = tcp.Server(ours, Protocol(), ("127.0.0.1", 1), None, 0, reactor)
    yield transport, reactor, peer
    ours.close()
    peer.close()


def drain(transport, reactor, peer) -> bytes:
    """Everything the peer receives, running the transport's writes as the reactor would."""
    peer.setblocking(False)
    received = b""
    while True:
        if transport in reactor.writers:
            transport.doWrite()
        try:
            chunk = peer.recv(1 << 20)
        except BlockingIOError:
            if transport not in reactor.writers:
                return received
            continue
        received += chunk


def test_a_write_is_on_the_wire_before_the_reactor_runs(wire):
    transport, reactor, peer = wire
    transport.write(b"first words")
    assert reactor.writers == set()  # nothing left for a later turn
    assert peer.recv(100) == b"first words"


def test_what_the_socket_does_not_take_waits_and_later_writes_queue_behind_it(wire):
    transport, reactor, peer = wire
    big = bytes(range(256)) * 40_000  # 10 MB: more than a socket's buffer takes at once
    transport.write(big)
    assert transport in reactor.writers
    transport.write(b"tail")  # must not overtake what is buffered
    transport.write(b"")
    assert drain(transport, reactor, peer) == big + b"tail"
    transport.write(b"again")  # the buffer is empty: at once again
    assert peer.recv(100) == b"again"


def test_a_pull_producer_keeps_twisteds_path(wire):
    transport, reactor, peer = wire

    class Producer:
        def resumeProducing(self) -> None:
            pass

        def stopProducing(self) -> None:
            pass

    transport.registerProducer(Producer(), streaming=False)
    transport.write(b"pulled")
    assert transport in reactor.writers  # the reactor's write asks the producer for more
    assert drain(transport, reactor, peer) == b"pulled"


def test_a_peer_that_is_gone_is_found_by_the_reactors_write(wire):
    transport, reactor, peer = wire
    peer.close()
    transport.write(b"to nobody")  # no exception here
    assert transport in reactor.writers
    assert transport.doWrite() is main.CONNECTION_LOST  # the reactor then closes the connection
