"""``/mcp``: the MCP tools over Streamable HTTP, in the web server's own process and event loop (a
debate of the single-process mode runs on that loop, and its live layer is bound to it).

Stateless: each POST is a whole exchange (a tool call's progress notifications stream on its
response), so any web process can answer it and a restart loses no session. With no session there
is no stream for a GET to open and none for a DELETE to end: both are answered 405, as the
specification asks of a server that offers neither. A request without a
valid token is refused here, in words, before the SDK sees it. The SDK's DNS-rebinding check
is off: it guards servers with no authentication, and every request here carries a bearer token
that no page of another site can add.

A client without a token is answered a 401 naming ``/mcp``'s protected-resource metadata, and signs
its user in through the browser (debates.integrations.mcp.oauth); the access token it gets, or an
API token made in the admin, is its bearer.

The SDK is imported on the first call to ``/mcp``: a server nobody reaches over MCP does not pay for it.
"""

import asyncio
import io
import json
from typing import Any

from asgiref.sync import sync_to_async
from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import DisallowedHost
from django.core.handlers.asgi import ASGIRequest

from debates.integrations.mcp import oauth
from debates.tokens import bearer_user

PATH = oauth.PATH
REFUSED = (
    "Authentication required: sign in through your MCP client (OAuth), or send "
    "'Authorization: Bearer <token>' with an API token made in the admin."
)


class McpMount:
    """ASGI: ``/mcp`` to the MCP SDK's Streamable HTTP app, every other path to ``app``."""

    def __init__(self, app) -> None:
        self.app = app
        self.mcp: Any = None  # the SDK's Starlette app
        self.ready: asyncio.Future | None = None
        self.serving: asyncio.Task | None = None  # held: the loop keeps only weak references to tasks

    async def __call__(self, scope, receive, send) -> None:
        path = scope.get("path", "")
        if scope["type"] != "http" or (path != PATH and not path.startswith(PATH + "/")):
            await self.app(scope, receive, send)
            return
        if scope["method"] != "POST":
            await refuse(send, 405, f"{scope['method']} is not served here: this MCP server is stateless, send POST.")
            return
        request = ASGIRequest(scope, io.BytesIO())  # Django's view of the headers: host, scheme behind a proxy
        try:
            user = await sync_to_async(authenticated)(request)
            if isinstance(user, oauth.Challenge):
                await challenge(send, user, request)
                return
        except DisallowedHost:
            await refuse(send, 400, "That Host is not one this server answers for (ALLOWED_HOSTS).")
            return
        # The tools read the user here (Starlette's place for it), not the header again.
        await (await self.started())({**scope, "user": user}, receive, send)

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


def authenticated(request: ASGIRequest) -> AbstractBaseUser | oauth.Challenge:
    """The user of the request's bearer: an API token's, else an OAuth access token's."""
    authorization = request.headers.get("Authorization", "")
    user = bearer_user(authorization)
    if user is None:
        return oauth.Challenge(401, REFUSED)
    if user.is_authenticated:
        return user
    return oauth.token_user(authorization.partition(" ")[2].strip(), request)


async def challenge(send, refused: oauth.Challenge, request: ASGIRequest) -> None:
    """RFC 6750 §3 with RFC 9728 §5.1: the scheme, where the client finds how to get a token, the scope
    it needs, and for a token sent but refused, why."""
    words = f'Bearer realm="teorema", resource_metadata="{oauth.metadata_url(request)}", scope="{oauth.SCOPE}"'
    if refused.error:
        words += f', error="{refused.error}", error_description="{refused.message}"'
    await refuse(send, refused.status, refused.message, [(b"www-authenticate", words.encode())])


async def refuse(send, status: int, message: str, headers: list[tuple[bytes, bytes]] = []) -> None:  # noqa: B006 (never changed)
    """A JSON-RPC error an MCP client shows (the SDK's client raises it as the call's error), with the
    HTTP status that says why."""
    if status == 405:
        headers = [*headers, (b"allow", b"POST")]
    await answer(send, status, {"jsonrpc": "2.0", "id": None, "error": {"code": -32001, "message": message}}, headers)


async def answer(send, status: int, payload: dict[str, Any], headers: list[tuple[bytes, bytes]] = []) -> None:  # noqa: B006 (never changed)
    body = json.dumps(payload).encode()
    start = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()), *headers]
    await send({"type": "http.response.start", "status": status, "headers": start})
    await send({"type": "http.response.body", "body": body})
