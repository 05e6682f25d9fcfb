"""A request's database connection ends with the request (debates.apps.close_request_connections):
under ASGI the request's thread ends with it, and a connection kept open for reuse was never reused."""

import pytest
from channels.testing import HttpCommunicator
from django.core.asgi import get_asgi_application
from django.db.backends.signals import connection_created


@pytest.mark.django_db(transaction=True)
async def test_a_request_closes_the_database_connection_it_opened() -> None:
    opened = []

    def note(sender: object, connection: object, **kwargs: object) -> None:
        opened.append(connection)

    connection_created.connect(note)
    request = HttpCommunicator(get_asgi_application(), "GET", "/healthz", headers=[(b"host", b"127.0.0.1")])
    try:
        response = await request.get_response()
        await request.wait()  # the request is over once its response is closed, after the body
    finally:
        connection_created.disconnect(note)

    assert response["status"] == 200
    assert opened, "the health check reads the database on a connection of its own"
    assert [c.connection for c in opened] == [None] * len(opened)
