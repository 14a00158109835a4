"""Django's Redis cache, with one redis-py client per connection pool instead of one per command.

Django's `RedisCacheClient.get_client` makes a new `redis.Redis` for every command it sends, and
redis-py's constructor builds its table of response callbacks (some 170 entries) each time: on
the web's hot path that cost more CPU than the round trip it prepared (docs/benchmarks.md). A
client keeps nothing of its own beyond that table and its pool, from which each command takes a
connection, so one per pool serves every command of the process, from any thread.

It also counts in one round trip (`count`): Django's `incr` asks EXISTS before INCRBY, to raise
on a missing key, as its contract says.
"""
from __future__ import annotations

from django.core.cache.backends.redis import RedisCache, RedisCacheClient


class _OneClientPerPool(RedisCacheClient):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._clients: dict = {}

    def get_client(self, key=None, *, write=False):
        pool = self._get_connection_pool(write)
        client = self._clients.get(pool)
        if client is None:
            client = self._clients[pool] = self._client(connection_pool=pool)
        return client


class SharedClientRedisCache(RedisCache):
    """`django.core.cache.backends.redis.RedisCache`, its clients made once per pool."""

    def __init__(self, server, params):
        super().__init__(server, params)
        self._class = _OneClientPerPool

    def count(self, key: str, amount: int = 1) -> int:
        """Add `amount` to the integer under `key`, a missing one starting at 0 and never expiring;
        the new value. One INCRBY, which stores a bare integer, read back as one by `get`."""
        key = self.make_and_validate_key(key)
        return self._cache.get_client(key, write=True).incrby(key, amount)
