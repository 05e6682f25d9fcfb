"""Websocket handshakes: only the site's own pages may open one, and a wrong path is a plain refusal."""

import logging

import pytest
from channels.testing import WebsocketCommunicator
from django.test import Client

from teorema.asgi import application

pytestmark = pytest.mark.django_db(transaction=True)
HOST = "127.0.0.1:8000"


@pytest.fixture
def cookie(alice) -> str:
    """The session cookie of a signed-in browser tab (made up front: the ORM is sync)."""
    browser = Client()
    browser.force_login(alice)
    return f"sessionid={browser.cookies['sessionid'].value}"


@pytest.fixture
def finished(alice, offline_panel, make_question) -> int:
    return make_question(alice, offline_panel, status="done", verdict="Shard.").pk


async def opens(path: str, cookie: str = "", origin: str = f"http://{HOST}", host: str = HOST, **more: str) -> bool:
    """Whether the handshake is accepted."""
    sent = {"host": host, "origin": origin, "cookie": cookie, **more}
    headers = [(name.replace("_", "-").encode(), value.encode()) for name, value in sent.items()]
    socket = WebsocketCommunicator(application, path, headers=headers)
    accepted, _ = await socket.connect()
    await socket.disconnect()
    return accepted


@pytest.mark.parametrize("path", ["/ws/nothing/here/", "/ws/questions/abc/", "/ws/questions/1/extra/", "/"])
async def test_a_socket_to_no_route_is_refused_without_a_traceback(cookie, path, caplog):
    assert not await opens(path, cookie)
    assert [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info] == []


async def test_the_own_origin_opens_a_socket(finished, cookie):
    assert await opens(f"/ws/questions/{finished}/", cookie)


@pytest.mark.parametrize(
    "origin",
    [
        "http://127.0.0.1:9000",  # another port of an allowed host: another site
        "http://127.0.0.1",
        "https://127.0.0.1:8000",  # another scheme
        "http://localhost:8000",  # an allowed host, but not the one asked
        "null",
        "",
    ],
)
async def test_another_origin_is_refused_even_with_the_users_cookie(finished, cookie, origin):
    assert not await opens(f"/ws/questions/{finished}/", cookie, origin=origin)


async def test_a_trusted_origin_opens_a_socket(finished, cookie, settings):
    settings.CSRF_TRUSTED_ORIGINS = ["https://teorema.example.com", "https://*.example.org"]
    for origin in ("https://teorema.example.com", "https://app.example.org"):
        assert await opens(f"/ws/questions/{finished}/", cookie, origin=origin)
    assert not await opens(f"/ws/questions/{finished}/", cookie, origin="http://teorema.example.com")


async def test_a_host_not_served_is_refused_whatever_the_origin(finished, cookie, settings):
    settings.CSRF_TRUSTED_ORIGINS = ["https://teorema.example.com"]
    assert not await opens(f"/ws/questions/{finished}/", cookie, origin="http://evil.example", host="evil.example")
    assert not await opens(
        f"/ws/questions/{finished}/", cookie, origin="https://teorema.example.com", host="evil.example"
    )


async def test_behind_a_tls_proxy_the_https_origin_is_the_own_one(finished, cookie, settings):
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    path = f"/ws/questions/{finished}/"
    assert await opens(path, cookie, origin=f"https://{HOST}", x_forwarded_proto="https")
    assert not await opens(path, cookie, origin=f"http://{HOST}", x_forwarded_proto="https")
