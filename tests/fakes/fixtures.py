"""Pytest fixtures for the fake provider server (registered in tests/conftest.py)."""

from collections.abc import Iterator

import pytest

from debates.providers import retry
from tests.fakes.provider_server import FakeProviderServer


@pytest.fixture(scope="session")
def provider_server() -> Iterator[FakeProviderServer]:
    """One fake provider server for the whole session, on a free loopback port."""
    with FakeProviderServer() as server:
        yield server


@pytest.fixture
def fast_retries(monkeypatch: pytest.MonkeyPatch) -> retry.RetryPolicy:
    """Retry waits of milliseconds, so fault tests stay fast (Retry-After capped at 1s)."""
    monkeypatch.setattr(retry, "POLICY", retry.RetryPolicy(base_seconds=0.01, max_seconds=0.05, retry_after_cap=1.0))
    return retry.POLICY


@pytest.fixture
def fake_provider(provider_server: FakeProviderServer, fast_retries: retry.RetryPolicy) -> FakeProviderServer:
    """The session's fake server with no scripts and no recorded requests, and fast retries."""
    provider_server.reset()
    return provider_server
