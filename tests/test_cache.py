"""teorema.cache.RedisCache against a real Redis: Django's cache API as before, from many
threads at once, over one redis-py client per connection pool."""

import threading

from teorema.cache import RedisCache
from tests.integration import cluster as deploy


def test_the_cache_api_over_one_client_from_many_threads():
    deploy.require_services()
    with deploy.redis_database() as url:
        cache = RedisCache(url, {})
        assert cache._cache.get_client() is cache._cache.get_client(write=True)  # one pool, one client
        cache.set("state", {"seq": 1, "text": "Replicas."}, 60)
        assert cache.get("state") == {"seq": 1, "text": "Replicas."}
        assert not cache.add("state", "other")
        assert cache.incr(cache.add("n", 1) and "n", 2) == 3
        errors: list[str] = []

        def work(number: int) -> None:
            for i in range(100):
                cache.set(f"t{number}:{i}", [number, i], 60)
                if cache.get(f"t{number}:{i}") != [number, i]:
                    errors.append(f"t{number}:{i}")

        threads = [threading.Thread(target=work, args=(n,)) for n in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert errors == []
        assert cache.get_many([f"t7:{i}" for i in range(100)]) == {f"t7:{i}": [7, i] for i in range(100)}
        cache.delete("state")
        assert cache.get("state", "gone") == "gone"
        cache.clear()
