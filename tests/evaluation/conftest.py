"""Fixtures of the evaluation tests: a panel on the fake provider server, users, a clean cache."""

from pathlib import Path

import pytest
from django.core.cache import cache

from debates.models import Panel
from tests.evaluation import scenario
from tests.fakes.provider_server import FakeProviderServer
from tests.fakes.roster import make_panel


@pytest.fixture(autouse=True)
def clean_cache() -> None:
    """Live state must not leak from one test's questions into the next."""
    cache.clear()


@pytest.fixture
def panel(db, fake_provider: FakeProviderServer) -> Panel:
    return make_panel(fake_provider.base_url("openai"))


@pytest.fixture
def scripted(fake_provider: FakeProviderServer, panel: Panel) -> FakeProviderServer:
    scenario.script(fake_provider)
    return fake_provider


@pytest.fixture
def six_items(tmp_path: Path) -> Path:
    return scenario.write_dataset(tmp_path / "six.jsonl")
