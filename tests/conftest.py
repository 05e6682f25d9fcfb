"""Shared test setup; fixtures live next to what they fake."""

from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from hypothesis import HealthCheck
from hypothesis import settings as hypothesis

# No property test fails for the time an example takes: these machines are shared and noisy, and a
# deadline is a wall-clock threshold (an example of 200 ms failed under load, nothing else wrong).
hypothesis.register_profile("teorema", deadline=None, suppress_health_check=[HealthCheck.too_slow])
hypothesis.load_profile("teorema")

pytest_plugins = ["tests.fakes.fixtures", "tests.fakes.clis"]


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """The SQLite test database's WAL files, which Django's teardown leaves beside the file it removes."""
    name = settings.DATABASES["default"].get("TEST", {}).get("NAME")
    if name:
        for suffix in ("-wal", "-shm"):
            Path(f"{name}{suffix}").unlink(missing_ok=True)


@pytest.fixture(autouse=True)
def fast_password_hasher(settings) -> None:
    """PBKDF2 costs about a second a user on a shared core; MD5 is enough for test passwords.

    In-process only: the Daphne and manage.py subprocesses of the browser and integration tests
    read teorema.settings from their environment and keep PBKDF2 for their few users.
    """
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def file_storage(settings, tmp_path: Path) -> Path:
    """Attachments go to this test's own folder, never to the developer's data directory."""
    location = tmp_path / "files"
    settings.STORAGES = settings.STORAGES | {
        "default": {"BACKEND": "django.core.files.storage.FileSystemStorage", "OPTIONS": {"location": str(location)}}
    }
    return location


# The users the viewer, evaluation and track-record tests share.
@pytest.fixture
def alice(db):
    return get_user_model().objects.create_user("alice", password="pw-alice-123")


@pytest.fixture
def bob(db):
    return get_user_model().objects.create_user("bob", password="pw-bob-123")


@pytest.fixture
def staff(db):
    return get_user_model().objects.create_user("staff", password="pw-staff-123", is_staff=True)
