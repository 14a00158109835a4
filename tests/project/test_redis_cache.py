"""The production cache (`CUPBOARD_CACHE_URL=redis://...`, cupboard/redis_cache.py) makes one
redis-py client per connection pool, not one per command, and still reads back what it stores,
from many threads at once."""
import os
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
import redis
from django.utils.module_loading import import_string

from cupboard.envconfig import cache_from_url


@pytest.fixture
def redis_cache():
    """The cache `cache_from_url` makes, in the Redis db of CELERY_BROKER_URL when that is Redis
    (each developer's own), else db 15, under a key prefix of its own (never clear(): the db may
    hold a broker's queues)."""
    broker = os.getenv("CELERY_BROKER_URL", "")
    entry = cache_from_url(broker if broker.startswith("redis://") else "redis://127.0.0.1:6379/15")
    cache = import_string(entry["BACKEND"])(entry["LOCATION"], {"KEY_PREFIX": f"redis-cache-test-{os.getpid()}-{time.time()}"})
    yield cache
    cache.delete_many([f"key-{i}" for i in range(20)])


@pytest.mark.redis
def test_commands_share_one_client_and_read_back(redis_cache, monkeypatch):
    made = []
    real = redis.Redis.__init__

    def init(self, *args, **kwargs):
        made.append(self)
        real(self, *args, **kwargs)
    monkeypatch.setattr(redis.Redis, "__init__", init)
    for i in range(10):
        redis_cache.set(f"key-{i}", {"value": i}, 60)
    assert [redis_cache.get(f"key-{i}") for i in range(10)] == [{"value": i} for i in range(10)]
    assert redis_cache.get("key-missing") is None
    assert len(made) == 1  # Django's own RedisCache: 21, a client per command


@pytest.mark.redis
def test_threads_share_the_client_and_each_reads_its_own(redis_cache):
    def round_trip(i: int):
        redis_cache.set(f"key-{i}", f"value {i}", 60)
        return redis_cache.get(f"key-{i}")
    with ThreadPoolExecutor(max_workers=20) as pool:
        assert list(pool.map(round_trip, range(20))) == [f"value {i}" for i in range(20)]
