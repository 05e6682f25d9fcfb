"""Teorema's own middleware: multipart names as sent, and the local single-user mode.

Local single-user mode: the browser on this machine is signed in as the local user. Enabled only
when TEOREMA_LOCAL_USER is set (``make run`` sets it) and never in production; only loopback
clients are signed in, so exposing the port does not expose the app.
"""

from collections.abc import Callable

from django.conf import settings
from django.contrib.auth import get_user_model, login
from django.http import HttpRequest, HttpResponse

from debates.attachments.multipart import NamesAsSent

LOOPBACK = {"127.0.0.1", "::1"}


class LocalUserMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        username = settings.TEOREMA_LOCAL_USER
        # The address first: it is free, while the user costs a session and a user query.
        if username and request.META.get("REMOTE_ADDR") in LOOPBACK and not request.user.is_authenticated:
            user = get_user_model().objects.filter(username=username, is_active=True).first()
            if user is not None:
                login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        return self.get_response(request)


class NamesAsSentMiddleware:
    """Every multipart body is parsed by NamesAsSent, before CSRF's check reads the form (and parses it)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        request.multipart_parser_class = NamesAsSent  # type: ignore[assignment]  # the stubs say an instance
        return self.get_response(request)
