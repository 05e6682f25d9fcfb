"""Fixtures of the viewer tests: users, a roster on the fake provider server, a clean cache."""

from collections.abc import Callable

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache

from debates.models import Panel, Panelist, Provider, Question, Seat
from tests.fakes.provider_server import FakeProviderServer


@pytest.fixture(autouse=True)
def clean_cache() -> None:
    """Live state and rate-limit counters must not leak from one test into the next."""
    cache.clear()


@pytest.fixture
def alice(db):
    return get_user_model().objects.create_user("alice", password="pw-alice-123")


@pytest.fixture
def bob(db):
    return get_user_model().objects.create_user("bob", password="pw-bob-123")


def make_roster(base_url: str, voices: int = 3, protocol: str = "teorema", slug: str = "house") -> Panel:
    """A panel of ``voices`` distinct families on one OpenAI-wire provider, plus a moderator."""
    provider = Provider.objects.create(name=f"Fake {slug}", protocol="openai", base_url=base_url, max_retries=0)
    provider.set_api_key("sk-fake-provider-key")
    provider.save()
    families = ["alpha", "beta", "gamma", "delta", "epsilon"]
    members = [
        Panelist.objects.create(
            name=f"{family.title()} {slug}",
            provider=provider,
            model=f"model-{family}",
            family=family,
            price_in="1.00",
            price_out="2.00",
        )
        for family in families[:voices]
    ]
    moderator = Panelist.objects.create(
        name=f"Moderator {slug}", provider=provider, model="model-moderator", family="omega"
    )
    panel = Panel.objects.create(
        name=f"Panel {slug}", slug=slug, protocol=protocol, moderator=moderator, is_default=True
    )
    for position, member in enumerate(members):
        Seat.objects.create(panel=panel, panelist=member, position=position)
    return panel


@pytest.fixture
def panel(db, fake_provider: FakeProviderServer) -> Panel:
    return make_roster(fake_provider.base_url("openai"))


@pytest.fixture
def offline_panel(db) -> Panel:
    """A panel that is never called (the run is not started in these tests)."""
    return make_roster("http://127.0.0.1:9/v1", slug="offline")


@pytest.fixture
def make_question(db) -> Callable[..., Question]:
    def make(owner, panel: Panel, **fields) -> Question:
        text = fields.pop("text", "Shard or replicate?")
        return Question.objects.create(owner=owner, panel=panel, text=text, criticality="medium", **fields)

    return make


@pytest.fixture
def no_runs(monkeypatch: pytest.MonkeyPatch) -> list[Question]:
    """Record runs.submit instead of starting a run: the form tests spend no call."""
    submitted: list[Question] = []
    monkeypatch.setattr("debates.runs.submit", submitted.append)
    return submitted
