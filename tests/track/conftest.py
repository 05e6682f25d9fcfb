"""Fixtures of the track-record tests: users, a teorema panel and a vote panel that are never called."""

import pytest

from debates.models import ApiToken, Panel
from debates.tokens import assign_secret
from tests.fakes.roster import make_panel

OFFLINE = "http://127.0.0.1:9/v1"  # nothing runs: the debates are stored as a run leaves them


@pytest.fixture
def house(db) -> Panel:
    """Teorema: Alpha, Beta and Gamma house, seated as Panelist A, B and C."""
    return make_panel(OFFLINE)


@pytest.fixture
def ballot(db) -> Panel:
    """Vote: Alpha, Beta and Gamma ballot."""
    return make_panel(OFFLINE, protocol="vote", slug="ballot")


def bearer(user) -> dict:
    token = ApiToken(user=user, name="script")
    raw = assign_secret(token)
    token.save()
    return {"HTTP_AUTHORIZATION": f"Bearer {raw}"}
