"""The per-user limit holds across processes: two servers taking slots at once never pass more than it."""

import multiprocessing
import os
import secrets
from collections.abc import Iterator
from multiprocessing.synchronize import Barrier
from queue import Queue

import pytest
import redis

from debates.lib import ratelimit

LIMIT, ATTEMPTS = 100, 300  # per process: far more attempts than the limit, all at once


@pytest.fixture
def redis_cache() -> Iterator[dict]:
    """A Django cache on the loopback Redis, under a key prefix of its own (its keys deleted afterwards)."""
    client = redis.Redis(host="127.0.0.1", port=6379, socket_connect_timeout=3)
    try:
        client.ping()
    except redis.RedisError as exc:
        if os.environ.get("TEOREMA_REQUIRE_SERVICES") == "1":
            pytest.fail(f"Redis is required (TEOREMA_REQUIRE_SERVICES=1) but unreachable: {exc}")
        pytest.skip(f"Redis unreachable on 127.0.0.1:6379: {exc}")
    prefix = f"teorema-test-{secrets.token_hex(6)}"
    yield {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": "redis://127.0.0.1:6379",
        "KEY_PREFIX": prefix,
    }
    for key in client.scan_iter(f"{prefix}:*"):
        client.delete(key)
    client.close()


def take_slots(cache: dict, user_id: int, start: Barrier, passed: Queue) -> None:
    """In a process of its own: take slots as fast as it can once both are ready; report how many passed."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "teorema.settings")
    import django

    django.setup()
    from django.conf import settings
    from django.test import override_settings

    with override_settings(CACHES={"default": cache}, TEOREMA={**settings.TEOREMA, "QUESTIONS_PER_HOUR": LIMIT}):
        start.wait()
        passed.put(sum(ratelimit.take(user_id) == 0 for _ in range(ATTEMPTS)))


@pytest.mark.services
def test_two_processes_taking_at_once_never_pass_more_than_the_limit(redis_cache):
    spawn = multiprocessing.get_context("spawn")
    start, passed = spawn.Barrier(2), spawn.Queue()
    processes = [spawn.Process(target=take_slots, args=(redis_cache, 7, start, passed)) for _ in range(2)]
    for process in processes:
        process.start()
    counts = [passed.get(timeout=120) for _ in processes]
    for process in processes:
        process.join(timeout=30)
    assert sum(counts) == LIMIT
