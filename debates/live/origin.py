"""Websocket handshakes only from this site's own pages, judged by Django's rule for a POST's Origin.

A browser sends its cookies with a handshake opened by any site's page, so the socket checks where
the page came from as CSRF checks a form: the Origin must be this request's own scheme, host and
port, or one of CSRF_TRUSTED_ORIGINS (Channels' AllowedHostsOriginValidator ignores the port and
the scheme, so another port of the same host could watch as the signed-in user).
"""

import io

from channels.security.websocket import WebsocketDenier
from django.core.exceptions import DisallowedHost
from django.core.handlers.asgi import ASGIRequest
from django.http import HttpRequest, HttpResponse
from django.middleware.csrf import CsrfViewMiddleware


def handshake_request(scope: dict) -> ASGIRequest:
    """The handshake as the GET it is, so Django's own Host, scheme and proxy-header rules apply."""
    scheme = "https" if scope.get("scheme") == "wss" else "http"
    return ASGIRequest({**scope, "method": "GET", "scheme": scheme}, io.BytesIO())


def from_own_site(request: HttpRequest) -> bool:
    """Whether the page that opened the socket is this site's; without an Origin it is no page of ours."""
    if "origin" not in request.headers:
        return False
    try:
        request.get_host()  # a Host outside ALLOWED_HOSTS is refused whatever the Origin
    except DisallowedHost:
        return False
    # Django's own origin check, so a socket is judged exactly as a form is.
    return CsrfViewMiddleware(lambda _: HttpResponse())._origin_verified(request)  # type: ignore[attr-defined]


class SameOriginOnly:
    """ASGI middleware: refuses a websocket handshake from any other site's page."""

    def __init__(self, app) -> None:
        self.app = app
        self.deny = WebsocketDenier.as_asgi()

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] == "websocket" and not from_own_site(handshake_request(scope)):
            return await self.deny(scope, receive, send)
        return await self.app(scope, receive, send)
