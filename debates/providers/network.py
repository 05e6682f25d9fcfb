"""The provider client's sockets on asyncio streams, not anyio.

httpcore reaches asyncio through anyio, whose every read enters a cancel scope, two context
managers and a checkpoint (one more turn of the loop): with many answers streaming that cost
more than our own SSE parsing and engine together. This backend does the same job with asyncio's
streams: a read that finds data waiting returns it without a turn of the loop, and a timeout is
one timer.

httpcore's network backend is its extension point; httpx's transport does not take one, so
``transport()`` builds httpx's transport and gives it a pool that uses this backend, with the
same settings httpx would use.
"""

# The methods' ``timeout`` parameters are httpcore's interface (ruff's ASYNC109 would rename them).
# ruff: noqa: ASYNC109

import asyncio
import ssl
from collections.abc import Iterable
from typing import Any

import httpcore
import httpx
from httpcore import SOCKET_OPTION as SocketOption
from httpcore import AsyncNetworkBackend, AsyncNetworkStream


class Stream(AsyncNetworkStream):
    """A connection. Its read timeout is one lazy alarm, not a timer per read: a streamed answer
    reads once per event, and arming and cancelling a timeout around each read cost CPU on every
    one. Each read moves the deadline; the alarm, when it rings, rings again at the deadline if it
    moved, and cancels the read only if it has passed."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer
        self.deadline = 0.0
        self.alarm: asyncio.TimerHandle | None = None
        self.reading: asyncio.Task[object] | None = None  # the read the alarm may cancel
        self.expired = False

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        loop = asyncio.get_running_loop()
        if timeout is not None:
            self.deadline = loop.time() + timeout
            self.reading, self.expired = asyncio.current_task(), False
            if self.alarm is None or self.alarm.when() > self.deadline:  # a shorter timeout than the last
                self._arm(loop)
        try:
            return await self.reader.read(max_bytes)
        except asyncio.CancelledError:
            if self.expired and self.reading is not None and self.reading.uncancel() == 0:
                raise httpcore.ReadTimeout("no data before the read timeout") from None
            raise
        except OSError as exc:
            raise httpcore.ReadError(str(exc) or type(exc).__name__) from exc
        finally:
            self.reading = None

    def _arm(self, loop: asyncio.AbstractEventLoop) -> None:
        if self.alarm is not None:
            self.alarm.cancel()
        self.alarm = loop.call_at(self.deadline, self._ring)

    def _ring(self) -> None:
        self.alarm = None
        if self.reading is None:
            return  # no read waiting: the next one arms the alarm again
        loop = asyncio.get_running_loop()
        if loop.time() < self.deadline:
            self._arm(loop)
        else:
            self.expired = True
            self.reading.cancel()

    async def write(self, buffer: bytes, timeout: float | None = None) -> None:
        if not buffer:
            return
        try:
            async with asyncio.timeout(timeout):
                self.writer.write(buffer)
                await self.writer.drain()
        except TimeoutError as exc:
            raise httpcore.WriteTimeout(str(exc)) from exc
        except OSError as exc:
            raise httpcore.WriteError(str(exc) or type(exc).__name__) from exc

    async def aclose(self) -> None:
        if self.alarm is not None:
            self.alarm.cancel()
        self.writer.close()  # the transport closes on its own; waiting could hang on a dead peer

    async def start_tls(
        self, ssl_context: ssl.SSLContext, server_hostname: str | None = None, timeout: float | None = None
    ) -> AsyncNetworkStream:
        try:
            async with asyncio.timeout(timeout):
                await self.writer.start_tls(ssl_context, server_hostname=server_hostname)
        except TimeoutError as exc:
            self.writer.close()
            raise httpcore.ConnectTimeout(str(exc)) from exc
        except (OSError, ssl.SSLError) as exc:
            self.writer.close()
            raise httpcore.ConnectError(str(exc) or type(exc).__name__) from exc
        return self

    def get_extra_info(self, info: str) -> Any:
        if info == "is_readable":  # an idle pooled connection the server has closed (or spoken on)
            return self.reader.at_eof() or self.writer.is_closing()
        name = {"client_addr": "sockname", "server_addr": "peername"}.get(info, info)
        return self.writer.get_extra_info(name) if name in {"ssl_object", "sockname", "peername", "socket"} else None


class AsyncioBackend(AsyncNetworkBackend):
    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[SocketOption] | None = None,
    ) -> AsyncNetworkStream:
        local = (local_address, 0) if local_address else None
        return await self._connect(asyncio.open_connection(host, port, local_addr=local), timeout, socket_options)

    async def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Iterable[SocketOption] | None = None
    ) -> AsyncNetworkStream:
        return await self._connect(asyncio.open_unix_connection(path), timeout, socket_options)

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)

    async def _connect(self, opening: Any, seconds: float | None, options: Iterable[SocketOption] | None) -> Stream:
        try:
            async with asyncio.timeout(seconds):
                reader, writer = await opening
        except TimeoutError as exc:
            raise httpcore.ConnectTimeout(str(exc)) from exc
        except OSError as exc:
            raise httpcore.ConnectError(str(exc) or type(exc).__name__) from exc
        sock = writer.get_extra_info("socket")
        for option in options or ():
            sock.setsockopt(*option)
        return Stream(reader, writer)


def transport(limits: httpx.Limits, http2: bool, verify: ssl.SSLContext | None = None) -> httpx.AsyncHTTPTransport:
    """httpx's transport on asyncio streams (proxies from the environment keep httpx's own).

    ``verify``: the TLS context that checks servers' certificates (httpx's default: the system's CAs).
    """
    made = httpx.AsyncHTTPTransport(http2=http2, limits=limits)
    made._pool = httpcore.AsyncConnectionPool(
        ssl_context=verify or httpx.create_ssl_context(),
        max_connections=limits.max_connections,
        max_keepalive_connections=limits.max_keepalive_connections,
        keepalive_expiry=limits.keepalive_expiry,
        http1=True,
        http2=http2,
        network_backend=AsyncioBackend(),
    )
    return made
