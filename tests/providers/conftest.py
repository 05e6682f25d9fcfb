import pytest

from debates.providers.client import close_shared_client


@pytest.fixture(autouse=True)
async def shared_client_closed():
    """Each test's event loop closes the client it opened, so no socket outlives its loop."""
    yield
    await close_shared_client()
