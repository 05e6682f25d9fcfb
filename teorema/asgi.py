"""ASGI entry point: HTTP to Django (``/mcp`` to the MCP server), websockets to the debate consumer
(session + origin checked)."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "teorema.settings")
django_asgi_app = get_asgi_application()

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402

from debates.integrations.mcp.http import McpMount  # noqa: E402
from debates.live.origin import SameOriginOnly  # noqa: E402
from debates.live.routing import websocket_urlpatterns  # noqa: E402
from debates.live.viewers import viewer_auth  # noqa: E402  (needs the app registry)
from debates.runs.tasks import ResumeOnFirstCall  # noqa: E402
from teorema.heap import freeze_loaded  # noqa: E402

application = ResumeOnFirstCall(
    ProtocolTypeRouter(
        {
            "http": McpMount(django_asgi_app),
            "websocket": SameOriginOnly(viewer_auth(URLRouter(websocket_urlpatterns))),
        }
    )
)
freeze_loaded()  # the app is loaded: see teorema.heap
