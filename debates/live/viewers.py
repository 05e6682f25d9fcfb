"""The viewers' reads (who is signing in, may they watch, the snapshot) on a thread of their own.

Every run's writes go through asgiref's one shared thread, and a run's result is shown only once
its write is done (store, then show). Viewers' reads queued there in front of those writes, with
every run's start (its claim, its spec), and with many questions submitted at once each run's
first words waited for them. They are read beside the writes (SQLite in WAL mode, or PostgreSQL,
lets them), on one thread with its own persistent connection.
"""

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from channels.auth import AuthMiddleware, get_user
from channels.db import database_sync_to_async
from channels.sessions import CookieMiddleware, SessionMiddleware

READS = ThreadPoolExecutor(max_workers=1, thread_name_prefix="teorema-viewers")


def on_viewers_thread(read: Callable[..., Any]) -> Any:
    """``read`` as a coroutine function run on the viewers' thread (old DB connections closed
    around it, as Channels does)."""
    return database_sync_to_async(read, thread_sensitive=False, executor=READS)


class ViewerAuthMiddleware(AuthMiddleware):
    """Channels' AuthMiddleware, reading the session and its user on the viewers' thread."""

    async def resolve_scope(self, scope: dict) -> None:
        scope["user"]._wrapped = await on_viewers_thread(get_user.func)(scope)


def viewer_auth(inner: Any) -> Any:
    """Channels' AuthMiddlewareStack, with the user read on the viewers' thread."""
    return CookieMiddleware(SessionMiddleware(ViewerAuthMiddleware(inner)))
