"""Tallies (cupboard/tallies.py) on the production cache: one round trip a count (INCRBY, which
starts a missing count), read back as the numbers they are, none lost to threads at once."""
import os
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
import redis
from django.core.cache import caches
from django.test import override_settings

from cupboard.tallies import PREFIX, tallies, tally


@pytest.fixture
def redis_cache():
    """The production Redis cache (cupboard/envconfig.py) with a key prefix of its own, in the db
    of CELERY_BROKER_URL when that is Redis (each developer's own), else db 15; its tallies
    deleted after (never clear(): the db may hold a broker's queues)."""
    broker = os.getenv("CELERY_BROKER_URL", "")
    location = broker if broker.startswith("redis://") else "redis://127.0.0.1:6379/15"
    cache = {"default": {"BACKEND": "cupboard.redis_cache.SharedClientRedisCache", "LOCATION": location,
                         "KEY_PREFIX": f"tally-test-{os.getpid()}-{time.time()}"}}
    with override_settings(CACHES=cache):
        yield caches["default"]
        caches["default"].delete_many([PREFIX + name for name in ("http_2xx", "http_4xx")])


@pytest.mark.redis
def test_a_count_is_one_round_trip_and_reads_back(redis_cache, monkeypatch):
    commands = []
    real = redis.Redis.execute_command

    def execute_command(self, *args, **options):
        commands.append(args[0])
        return real(self, *args, **options)
    monkeypatch.setattr(redis.Redis, "execute_command", execute_command)
    tally("http_2xx")
    tally("http_2xx", 4)
    assert commands == ["INCRBY", "INCRBY"]
    assert tallies()["http_2xx"] == 5 and tallies()["http_4xx"] == 0


@pytest.mark.redis
def test_threads_at_once_lose_no_count(redis_cache):
    with ThreadPoolExecutor(max_workers=8) as pool:
        list(pool.map(lambda _: tally("http_4xx"), range(200)))
    assert tallies()["http_4xx"] == 200
