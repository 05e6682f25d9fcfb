"""The provider client's asyncio network backend, over real loopback sockets: TLS, a pooled
connection the server closed, a refusal on every address of "localhost", a stall, and the read
timeout's one alarm per connection (a trickle is not a stall; a shorter timeout is honoured; a
cancelled read stays cancelled)."""

import asyncio
import contextlib
import ssl
from collections.abc import AsyncIterator, Awaitable, Callable

import httpcore
import httpx
import pytest
import trustme

from debates.providers.client import _refused, shared_client
from debates.providers.network import AsyncioBackend, transport

LIMITS = httpx.Limits(max_connections=10, max_keepalive_connections=5, keepalive_expiry=30)
SSE = b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncontent-length: %d\r\n\r\n%s"
Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


async def read_request(reader: asyncio.StreamReader) -> bytes:
    head = await reader.readuntil(b"\r\n\r\n")
    sizes = [line.split(b":")[1] for line in head.lower().split(b"\r\n") if line.startswith(b"content-length")]
    length = int(sizes[0]) if sizes else 0
    return head + await reader.readexactly(length)


def answer(body: bytes) -> bytes:
    return SSE % (len(body), body)


@contextlib.asynccontextmanager
async def serve(handler: Handler, tls: ssl.SSLContext | None = None) -> AsyncIterator[int]:
    server = await asyncio.start_server(handler, "127.0.0.1", 0, ssl=tls)
    async with server:
        yield server.sockets[0].getsockname()[1]


@pytest.fixture
def ca() -> trustme.CA:
    return trustme.CA()


async def test_a_tls_server_is_verified_and_answers(ca: trustme.CA) -> None:
    server_tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert("127.0.0.1").configure_cert(server_tls)
    client_tls = ssl.create_default_context()
    ca.configure_trust(client_tls)

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        writer.write(answer(b'data: {"ok": true}\n\n'))
        await writer.drain()
        writer.close()

    async with serve(handler, server_tls) as port:
        async with httpx.AsyncClient(transport=transport(LIMITS, http2=True, verify=client_tls)) as client:
            response = await client.post(f"https://127.0.0.1:{port}/v1/chat", json={"q": 1})
        assert response.status_code == 200
        assert response.text == 'data: {"ok": true}\n\n'


async def test_a_certificate_from_an_unknown_authority_is_refused(ca: trustme.CA) -> None:
    server_tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert("127.0.0.1").configure_cert(server_tls)

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.close()

    async with serve(handler, server_tls) as port, httpx.AsyncClient(transport=transport(LIMITS, False)) as client:
        with pytest.raises(httpx.ConnectError, match="CERTIFICATE_VERIFY_FAILED"):
            await client.get(f"https://127.0.0.1:{port}/")


async def test_a_pooled_connection_the_server_closed_is_replaced() -> None:
    connections = 0

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        nonlocal connections
        connections += 1
        await read_request(reader)
        writer.write(answer(b"data: one\n\n"))
        await writer.drain()
        writer.close()  # keep-alive by HTTP/1.1's default, then gone

    async with serve(handler) as port:
        client = shared_client()
        for _ in range(3):
            response = await client.post(f"http://127.0.0.1:{port}/", json={})
            assert response.text == "data: one\n\n"
            await asyncio.sleep(0.05)  # the close reaches the pooled connection
    assert connections == 3


async def test_localhost_refused_on_every_address_says_refused() -> None:
    probe = await asyncio.start_server(lambda r, w: None, "127.0.0.1", 0)
    port = probe.sockets[0].getsockname()[1]
    probe.close()
    await probe.wait_closed()
    with pytest.raises(httpx.ConnectError) as caught:
        await shared_client().get(f"http://localhost:{port}/")
    assert _refused(caught.value)


async def test_a_silent_server_is_a_read_timeout() -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        await asyncio.sleep(1)
        writer.close()  # the server's close waits for its connections

    async with serve(handler) as port:
        with pytest.raises(httpx.ReadTimeout):
            await shared_client().post(f"http://127.0.0.1:{port}/", json={}, timeout=httpx.Timeout(5, read=0.2))


async def test_a_trickle_within_the_read_timeout_is_read_whole_and_a_later_silence_times_out() -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        for _ in range(8):  # 0.8 s of data in all, never 0.3 s apart
            writer.write(b"x")
            await writer.drain()
            await asyncio.sleep(0.1)
        await asyncio.sleep(1.5)
        writer.close()

    async with serve(handler) as port:
        stream = await AsyncioBackend().connect_tcp("127.0.0.1", port, timeout=5)
        received = b""
        while len(received) < 8:
            received += await stream.read(100, timeout=0.3)
        with pytest.raises(httpcore.ReadTimeout):
            await stream.read(100, timeout=0.3)
        await stream.aclose()


async def test_a_shorter_timeout_than_the_last_read_had_is_honoured() -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(b"x")
        await writer.drain()
        await asyncio.sleep(1.5)
        writer.close()

    async with serve(handler) as port:
        stream = await AsyncioBackend().connect_tcp("127.0.0.1", port, timeout=5)
        assert await stream.read(100, timeout=60) == b"x"  # its alarm is a minute away
        with pytest.raises(httpcore.ReadTimeout):
            await asyncio.wait_for(stream.read(100, timeout=0.2), timeout=1)  # not the minute
        await stream.aclose()


async def test_a_read_cancelled_from_outside_is_cancelled_not_a_timeout() -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await asyncio.sleep(1.5)
        writer.close()

    async with serve(handler) as port:
        stream = await AsyncioBackend().connect_tcp("127.0.0.1", port, timeout=5)
        reading = asyncio.ensure_future(stream.read(100, timeout=30))
        await asyncio.sleep(0.1)
        reading.cancel()
        with pytest.raises(asyncio.CancelledError):
            await reading
        await stream.aclose()


async def test_the_backend_reports_its_addresses() -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.read()
        writer.close()

    async with serve(handler) as port:
        stream = await AsyncioBackend().connect_tcp("127.0.0.1", port, timeout=5)
        assert stream.get_extra_info("server_addr")[1] == port
        assert stream.get_extra_info("client_addr")[0] == "127.0.0.1"
        assert stream.get_extra_info("ssl_object") is None
        assert stream.get_extra_info("is_readable") is False
        await stream.aclose()
