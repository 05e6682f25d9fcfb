"""Fixtures of the edge tests: the viewer tests' users and roster, and a script's client and token."""

import pytest
from django.test import Client

from tests.viewer.conftest import clean_cache, make_question, no_runs, offline_panel  # noqa: F401
from tests.viewer.test_api import bearer


@pytest.fixture
def script() -> Client:
    """A client as a script is one: no cookies, and CSRF checked as for any request."""
    return Client(enforce_csrf_checks=True)


@pytest.fixture
def token(alice) -> dict:
    return bearer(alice)
