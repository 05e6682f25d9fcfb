"""Fixtures of the viewer tests: users, a roster on the fake provider server, a clean cache."""

from collections.abc import Callable

import pytest
from django.core.cache import cache

from debates.models import Panel, Question
from tests.fakes.provider_server import FakeProviderServer
from tests.fakes.roster import make_panel


@pytest.fixture(autouse=True)
def clean_cache() -> None:
    """Live state and rate-limit counters must not leak from one test into the next."""
    cache.clear()


@pytest.fixture
def panel(db, fake_provider: FakeProviderServer) -> Panel:
    return make_panel(fake_provider.base_url("openai"))


@pytest.fixture
def offline_panel(db) -> Panel:
    """A panel that is never called (the run is not started in these tests)."""
    return make_panel("http://127.0.0.1:9/v1", slug="offline")


@pytest.fixture
def make_question(db) -> Callable[..., Question]:
    def make(owner, panel: Panel, **fields) -> Question:
        text = fields.pop("text", "Shard or replicate?")
        return Question.objects.create(owner=owner, panel=panel, text=text, criticality="medium", **fields)

    return make


@pytest.fixture
def no_runs(monkeypatch: pytest.MonkeyPatch) -> list[Question]:
    """Record tasks.submit instead of starting a run: the form tests spend no call."""
    submitted: list[Question] = []
    monkeypatch.setattr("debates.runs.tasks.submit", submitted.append)
    return submitted
