"""A loopback aiohttp server on its own thread and event loop, shared by the fake servers.

A thread of its own lets one server answer in-process async tests, a Daphne subprocess and a
browser alike, whatever loop the test itself runs.
"""

import asyncio
import socket
import threading
from typing import Self

from aiohttp import web

# A request body as large as a provider takes: a question's files go base64 in every call's body.
MAX_BODY = 100 * 2**20


class ThreadedServer:
    name = "fake-server"

    def __init__(self, host: str = "127.0.0.1", port: int = 0) -> None:
        self.host, self.port = host, port
        self._loop: asyncio.AbstractEventLoop | None = None
        self._ready = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def routes(self, app: web.Application) -> None:
        """Add the server's routes (subclasses)."""
        raise NotImplementedError

    def on_loop(self) -> None:
        """Create what must live on the server's loop (subclasses may)."""

    def start(self) -> Self:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((self.host, self.port))
        self.port = sock.getsockname()[1]
        self._thread = threading.Thread(target=self._run, args=(sock,), name=self.name, daemon=True)
        self._thread.start()
        self._ready.wait(10)
        return self

    def stop(self) -> None:
        if self._loop and self._thread:
            self._loop.call_soon_threadsafe(self._stopping.set)
            self._thread.join(10)

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _run(self, sock: socket.socket) -> None:
        self._loop = asyncio.new_event_loop()
        self._loop.run_until_complete(self._serve(sock))
        self._loop.close()

    async def _serve(self, sock: socket.socket) -> None:
        self._stopping = asyncio.Event()
        self.on_loop()
        app = web.Application(client_max_size=MAX_BODY)
        self.routes(app)
        # No access log: real bot URLs carry the token, and so do ours.
        runner = web.AppRunner(app, access_log=None, handler_cancellation=True, shutdown_timeout=0.1)
        await runner.setup()
        await web.SockSite(runner, sock).start()
        self._ready.set()
        await self._stopping.wait()
        await runner.cleanup()
