"""Django's Redis cache, with one redis-py client per connection pool instead of one per call.

Django's client builds a ``redis.Redis`` for every operation, and redis-py 8's constructor costs
about as much CPU as the command it then sends. On a server the live sink writes a run's state
before every broadcast, many times a second per debate. A client is thread-safe over its pool:
one serves every thread.
"""

from typing import Any

import redis
from django.core.cache.backends.redis import RedisCache as DjangoRedisCache
from django.core.cache.backends.redis import RedisCacheClient


class KeptClient(RedisCacheClient):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._clients: dict[int, redis.Redis] = {}  # id(pool) -> its client; pools live as long as this

    def get_client(self, key: Any = None, *, write: bool = False) -> redis.Redis:
        # Django's own choice of pool (the first server for writes, any for reads); the stubs omit it.
        pool = self._get_connection_pool(write)  # type: ignore[attr-defined]
        client = self._clients.get(id(pool))
        if client is None:  # two threads may both build one: either serves
            client = self._clients[id(pool)] = redis.Redis(connection_pool=pool)
        return client


class RedisCache(DjangoRedisCache):
    def __init__(self, server: str, params: dict[str, Any]) -> None:
        super().__init__(server, params)
        self._class = KeptClient
