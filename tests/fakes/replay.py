"""A loopback server that replays recorded provider replies as they were sent: each request gets the
next recorded response's events as server-sent events (the wire's own ``event:`` names kept), so a
corpus of real-shaped replies is read by our client over a real socket, as a provider's would be.

    with ReplayServer() as server:
        server.play([first_response_events, continuation_events])   # one list of events a request
"""

import json
import threading
from typing import Any

from aiohttp import web

from tests.fakes.threaded import ThreadedServer


class ReplayServer(ThreadedServer):
    name = "replay-provider"

    def __init__(self, host: str = "127.0.0.1", port: int = 0) -> None:
        super().__init__(host, port)
        self.requests: list[dict[str, Any]] = []  # the JSON bodies received, in order
        self._responses: list[list[dict[str, Any]]] = []
        self._lock = threading.Lock()

    def play(self, responses: list[list[dict[str, Any]]]) -> None:
        """The responses the next requests get, one each, in order (each a list of {"event"?, "data"})."""
        with self._lock:
            self._responses, self.requests = list(responses), []

    def routes(self, app: web.Application) -> None:
        app.router.add_post("/{tail:.*}", self._handle)

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        body = await request.json()
        with self._lock:
            self.requests.append(body)
            events = self._responses.pop(0) if self._responses else None
        if events is None:
            return web.json_response({"error": {"message": "nothing recorded for this request"}}, status=500)
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        for event in events:
            named = f"event: {event['event']}\n" if event.get("event") else ""
            data = event["data"] if isinstance(event["data"], str) else json.dumps(event["data"], ensure_ascii=False)
            await response.write(f"{named}data: {data}\n\n".encode())
        await response.write_eof()
        return response
