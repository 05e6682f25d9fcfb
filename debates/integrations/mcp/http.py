"""``/mcp``: the MCP tools over Streamable HTTP, in the web server's own process and event loop (a
debate of the single-process mode runs on that loop, and its live layer is bound to it).

Stateless: each POST is a whole exchange (a tool call's progress notifications stream on its
response), so any web process can answer it and a restart loses no session. With no session there
is no stream for a GET to open and none for a DELETE to end: both are answered 405, as the
specification asks of a server that offers neither. A request without a
valid API token is refused here, in words, before the SDK sees it. The SDK's DNS-rebinding check
is off: it guards servers with no authentication, and every request here carries a bearer token
that no page of another site can add.

There is no OAuth here: a client that meets the 401 and looks for an authorization server (MCP
Inspector fetches the well-known metadata, then registers itself at ``/register``) is answered a
JSON 404 that says to send an API token, never the site's HTML page; the 401 names no
``resource_metadata`` for it to follow.

The SDK is imported on the first call to ``/mcp``: a server nobody reaches over MCP does not pay for it.
"""

import asyncio
import json
from typing import Any

from asgiref.sync import sync_to_async

from debates.tokens import bearer_user

PATH = "/mcp"
REFUSED = "Authentication required: send 'Authorization: Bearer <token>' with an API token made in the admin."
WRONG_TOKEN = (
    "That API token is not valid (wrong, revoked or expired): make one in the admin and send "
    "'Authorization: Bearer <token>'."
)
NO_OAUTH = (
    "This Teorema server has no OAuth authorization: make an API token in the admin and send "
    "'Authorization: Bearer <token>'."
)
# Where OAuth clients look for an authorization server (RFC 9728, RFC 8414, OpenID) and its endpoints.
DISCOVERY = (
    "/.well-known/oauth-protected-resource",
    "/.well-known/oauth-authorization-server",
    "/.well-known/openid-configuration",
)
OAUTH_ENDPOINTS = {"/register", "/authorize", "/token"}


class McpMount:
    """ASGI: ``/mcp`` to the MCP SDK's Streamable HTTP app, every other path to ``app``."""

    def __init__(self, app) -> None:
        self.app = app
        self.mcp: Any = None  # the SDK's Starlette app
        self.ready: asyncio.Future | None = None
        self.serving: asyncio.Task | None = None  # held: the loop keeps only weak references to tasks

    async def __call__(self, scope, receive, send) -> None:
        path = scope.get("path", "")
        if scope["type"] == "http" and (path.startswith(DISCOVERY) or path in OAUTH_ENDPOINTS):
            await answer(send, 404, {"error": "not_found", "error_description": NO_OAUTH})
            return
        if scope["type"] != "http" or (path != PATH and not path.startswith(PATH + "/")):
            await self.app(scope, receive, send)
            return
        if scope["method"] != "POST":
            await refuse(send, 405, f"{scope['method']} is not served here: this MCP server is stateless, send POST.")
            return
        raw = next((value for name, value in scope["headers"] if name == b"authorization"), b"")
        user = await sync_to_async(bearer_user)(raw.decode("latin-1"))
        if user is None or not user.is_authenticated:
            await refuse(send, 401, WRONG_TOKEN if raw.lower().startswith(b"bearer ") else REFUSED)
            return
        await (await self.started())(scope, receive, send)

    async def started(self):
        """The SDK's app, its session manager running on this loop (started by the first call)."""
        if self.ready is None:
            self.ready = asyncio.get_running_loop().create_future()
            self.serving = asyncio.create_task(self.serve(self.ready))
        await self.ready
        return self.mcp

    async def serve(self, ready: asyncio.Future) -> None:
        from mcp.server.transport_security import TransportSecuritySettings

        from debates.integrations.mcp.server import server

        app = server.streamable_http_app(
            streamable_http_path=PATH,
            stateless_http=True,
            transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
        )
        try:
            async with server.session_manager.run():
                self.mcp = app
                ready.set_result(None)
                await asyncio.Future()  # for the life of the process
        except Exception as error:  # every waiting call is answered with it; the next call starts afresh
            if not ready.done():
                ready.set_exception(error)
            self.ready = None


async def refuse(send, status: int, message: str) -> None:
    """A JSON-RPC error an MCP client shows (the SDK's client raises it as the call's error), with the
    HTTP status that says why; a 401 for a token sent but wrong says ``invalid_token`` (RFC 6750)."""
    headers = []
    if status == 401:
        challenge = 'Bearer realm="teorema"'
        if message == WRONG_TOKEN:
            challenge += f', error="invalid_token", error_description="{message}"'
        headers.append((b"www-authenticate", challenge.encode()))
    if status == 405:
        headers.append((b"allow", b"POST"))
    await answer(send, status, {"jsonrpc": "2.0", "id": None, "error": {"code": -32001, "message": message}}, headers)


async def answer(send, status: int, payload: dict[str, Any], headers: list[tuple[bytes, bytes]] = []) -> None:  # noqa: B006 (never changed)
    body = json.dumps(payload).encode()
    start = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()), *headers]
    await send({"type": "http.response.start", "status": status, "headers": start})
    await send({"type": "http.response.body", "body": body})
