"""Waking the workers is a hint: a word that cannot be published leaves the task queued for the poll."""

import logging

import pytest

from debates.runs import wake
from tests.integration.cluster import free_port


@pytest.fixture
def publisher():
    wake._publisher.clear()  # a client for this test's address
    yield
    wake._publisher.clear()


def test_a_word_redis_cannot_take_is_logged_not_raised(settings, caplog, publisher) -> None:
    settings.REDIS_URL = f"redis://127.0.0.1:{free_port()}/0"  # nothing listens there
    with caplog.at_level(logging.WARNING, logger="debates.runs.wake"):
        wake.publish()
    assert "workers not woken for a queued task (their next poll finds it)" in caplog.text


def test_no_redis_no_word(settings, django_capture_on_commit_callbacks) -> None:
    settings.REDIS_URL = ""  # the single process: no worker to wake
    with django_capture_on_commit_callbacks() as callbacks:
        wake.wake_workers(type(None))
    assert callbacks == []
