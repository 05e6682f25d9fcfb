import pytest

from debates.grounding import sandbox


@pytest.fixture
def short_time_limit(monkeypatch: pytest.MonkeyPatch) -> float:
    """One second per computation, so the tests that wait for a timeout stay quick."""
    monkeypatch.setattr(sandbox, "TIME_LIMIT_S", 1.0)
    return 1.0
