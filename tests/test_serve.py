"""teorema.serve.write_at_once: Daphne's transport sends at once, and keeps Twisted's order; and
the server's listen queue (``with_backlog``).

A real socket pair; the reactor stands in as the set of descriptors waiting to write, which a
test drains by hand the way the reactor would (``doWrite`` while the socket is writable). The last
tests run on a connection Twisted's own reactor accepted: write_at_once reads Twisted's private
fields, and a Twisted that changes them fails there.
"""

import asyncio
import contextlib
import inspect
import os
import re
import socket
import subprocess
import sys
import time

import pytest
import uvloop
from twisted.internet import _newtls, main, tcp
from twisted.internet.asyncioreactor import AsyncioSelectorReactor
from twisted.internet.endpoints import serverFromString
from twisted.internet.protocol import Factory, Protocol

from teorema.serve import BACKLOG, HANDSHAKE_S, _buffered_write, with_backlog, with_handshake_time, write_at_once
from tests.integration.cluster import LOOPBACK, free_port

# Twisted's private fields write_at_once reads, as a fresh connection has them: the fast path.
FRESH = {
    "connected": True,
    "TLS": False,
    "disconnecting": False,
    "_writeDisconnected": False,
    "_tempDataBuffer": [],
    "offset": 0,
    "dataBuffer": b"",
    "producer": None,
    "streamingProducer": False,
}


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


# --- against Twisted itself: what write_at_once relies on, on a connection Twisted made -----------


@pytest.fixture
def accepted():
    """(the server side's transport, as Twisted's asyncio reactor on uvloop builds it for a real
    loopback connection, as in Daphne; the client's socket; a turn of the reactor)."""
    loop = uvloop.new_event_loop()
    reactor = AsyncioSelectorReactor(loop)
    transports: list[tcp.Connection] = []

    class Accepting(Protocol):
        def connectionMade(self) -> None:
            transports.append(self.transport)

    port = reactor.listenTCP(0, Factory.forProtocol(Accepting), interface="127.0.0.1")
    peer = socket.create_connection(("127.0.0.1", port.getHost().port))

    def turn() -> None:
        loop.run_until_complete(asyncio.sleep(0.001))

    for _ in range(1000):
        if transports:
            break
        turn()
    assert transports, "Twisted never accepted the loopback connection"
    yield transports[0], peer, turn
    transports[0].loseConnection()
    port.stopListening()
    turn()
    peer.close()
    loop.close()


def test_twisteds_transport_still_has_every_field_write_at_once_reads(accepted):
    transport, _, _ = accepted
    read = set(re.findall(r"self\.(\w+)", inspect.getsource(write_at_once)))
    assert read == {*FRESH, "socket"}  # a field it newly reads belongs in FRESH, with its meaning
    missing = sorted(name for name in read if not hasattr(transport, name))
    assert missing == [], f"Twisted's tcp.Connection no longer has {missing}: write_at_once must change"
    assert isinstance(transport, tcp.Connection)
    assert {name: getattr(transport, name) for name in FRESH} == FRESH
    assert isinstance(transport.socket, socket.socket)


def test_what_write_at_once_falls_back_on_is_twisteds_own_write(accepted):
    transport, _, _ = accepted
    assert _buffered_write is _newtls.ConnectionMixin.write  # TLS or not, then FileDescriptor.write
    assert _buffered_write is type(transport).write  # nothing else has patched it meanwhile


def test_a_write_through_write_at_once_reaches_the_peer_byte_for_byte(accepted):
    transport, peer, turn = accepted
    big = bytes(range(256)) * 40_000  # more than the socket takes at once: the rest through Twisted
    for data in (b"first words", big, b"tail"):
        write_at_once(transport, data)
    expected = b"first words" + big + b"tail"
    peer.setblocking(False)
    received = b""
    for _ in range(10_000):
        turn()
        with contextlib.suppress(BlockingIOError):
            while chunk := peer.recv(1 << 20):
                received += chunk
        if len(received) >= len(expected):
            break
    assert received == expected


# --- the listen queue ------------------------------------------------------------------------


def test_every_endpoint_daphne_builds_from_its_options_gets_the_longer_listen_queue():
    assert with_backlog(host="127.0.0.1", port=8000) == [f"tcp:port=8000:interface=127.0.0.1:backlog={BACKLOG}"]
    assert with_backlog(host="[::1]", port=8000) == [rf"tcp:port=8000:interface=\:\:1:backlog={BACKLOG}"]
    assert with_backlog(unix_socket="/run/teorema.sock") == [f"unix:/run/teorema.sock:backlog={BACKLOG}"]
    assert with_backlog(file_descriptor=3) == ["fd:fileno=3"]  # already listening: its queue is set


def test_twisted_reads_the_listen_queue_from_the_description():
    reactor = AsyncioSelectorReactor(uvloop.new_event_loop())
    (described,) = with_backlog(host="127.0.0.1", port=8000)
    assert serverFromString(reactor, described)._backlog == BACKLOG


def test_the_server_listens_with_the_longer_queue(tmp_path):
    """``ss`` shows a listening socket's queue as its Send-Q: Daphne, started as ``make run`` does."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TEOREMA_", "DJANGO_"))}
    argv = [sys.executable, "-m", "teorema.serve", "-b", "127.0.0.1", "-p", str(port), "teorema.asgi:application"]
    server = subprocess.Popen(argv, env=env | {"TEOREMA_DATA_DIR": str(tmp_path)}, stderr=subprocess.DEVNULL)
    try:
        listening = ""
        for _ in range(300):
            listening = subprocess.run(["ss", "-Hltn", f"sport = :{port}"], capture_output=True, text=True).stdout
            if listening or server.poll() is not None:
                break
            time.sleep(0.1)
        assert listening.split()[:3] == ["LISTEN", "0", str(BACKLOG)], listening
    finally:
        server.terminate()
        server.wait(10)


def start_prepared(data_dir, port: int) -> tuple[str, int]:
    """``make run``'s server (``--prepare``) on a data directory, until /readyz answers: its output, the status."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TEOREMA_", "DJANGO_"))}
    argv = [sys.executable, "-m", "teorema.serve", "--prepare", "-b", "127.0.0.1", "-p", str(port)]
    server = subprocess.Popen(
        [*argv, "teorema.asgi:application"],
        env=env | {"TEOREMA_DATA_DIR": str(data_dir)},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    status = 0
    try:
        for _ in range(1200):
            if server.poll() is not None:
                break
            with contextlib.suppress(OSError), LOOPBACK.open(f"http://127.0.0.1:{port}/readyz", timeout=2) as answer:
                status = answer.status
                break
            time.sleep(0.1)
    finally:
        server.terminate()
        output, _ = server.communicate(timeout=30)
    return output, status


def test_make_runs_server_migrates_and_bootstraps_a_fresh_install_itself_and_only_that_once(tmp_path):
    """One Django start for ``make run``: a fresh data directory is migrated and bootstrapped by the
    server before it serves; the next start finds nothing to migrate and imports nothing again."""
    first, status = start_prepared(tmp_path, free_port())
    assert status == 200, first
    assert "Applying debates.0001_initial... OK" in first
    assert "Imported the default roster" in first
    assert 'Created the admin account "admin" with password' in first

    again, status = start_prepared(tmp_path, free_port())
    assert status == 200, again
    assert "Applying" not in again
    assert "Imported the default roster" not in again
    assert "Created the admin account" not in again


def test_a_websocket_may_take_the_handshake_time_to_be_accepted_unless_the_command_says_otherwise():
    served = with_handshake_time(["serve", "-b", "127.0.0.1", "app"])
    assert served == ["serve", "--websocket_connect_timeout", str(HANDSHAKE_S), "-b", "127.0.0.1", "app"]
    given = ["serve", "--websocket_connect_timeout", "7", "app"]
    assert with_handshake_time(given) == given
    joined = ["serve", "--websocket_connect_timeout=7", "app"]
    assert with_handshake_time(joined) == joined
