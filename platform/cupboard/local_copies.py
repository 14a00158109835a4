"""This process's own copies of shared-cache entries whose keys name the version of what they
hold, so that a repeat hit costs no round trip to the cache.

With Redis as the cache (every web process shares it: docker compose), each kept page's hit read
its entry over the network, and a client accepting gzip read a second one; on a small host
Redis' CPU competed with the web workers'. An entry whose key carries the fingerprint or version
of what it shows (competitions/page_cache.py: the competition's state; leaderboards/cache.py:
the board's version; a signed-in person's page or viewer class: their person token and their
team's runs token, themselves read from the shared cache on every request) never goes stale under
its key: a change makes a new key. Such an entry is copied here on its first hit, and served from
here until it would have expired in the shared cache (the shared value carries that instant,
`Stored`): whatever the expiry bounds (a change nothing reports, CUPBOARD_PAGE_CACHE_SECONDS) is
bounded here just as much. Keys without a version (a token, a session's lookup, a tally) never
come here: a deletion in the shared cache is how they change, and a copy would not see it.

Only values made of tuples, strings, bytes and numbers are copied (a caller cannot change them
under the next request's feet); anything else is read from the shared cache each time. The
copies of a process take at most CUPBOARD_LOCAL_COPY_BYTES (0: none are kept), least recently
used dropped first, and an entry larger than an eighth of it (a big topics file) is never
copied. Threads share the copies under one lock.
"""
from __future__ import annotations

import sys
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from threading import Lock
from typing import Any, TypeVar

from django.conf import settings
from django.core.cache import cache

T = TypeVar("T")
_OVERHEAD = 200  # bytes of a copy beyond its key and value: the dict's slot, the tuple, the expiry
_IMMUTABLE_LEAVES = (str, bytes, int, float, bool, type(None))


@dataclass(frozen=True)
class Stored:
    """What the shared cache holds under a versioned key: the value and when it expires there
    (epoch seconds), which a copy never outlives."""

    value: Any
    expires: float


def _size(value: Any) -> int | None:
    """The bytes `value` takes in memory, or None when it is not to be copied (mutable)."""
    if isinstance(value, _IMMUTABLE_LEAVES):
        return sys.getsizeof(value)
    if isinstance(value, tuple):  # a named tuple's too
        sizes = [_size(item) for item in value]
        return None if None in sizes else sys.getsizeof(value) + sum(sizes)  # type: ignore[arg-type]
    return None


class Copies:
    """Copies of versioned entries, at most `limit` bytes (read at each store, so a setting
    changed at run time holds), least recently used dropped first."""

    def __init__(self, limit: Callable[[], int]):
        self._limit = limit
        self._items: OrderedDict[str, tuple[Any, float, int]] = OrderedDict()  # key -> (value, expires, size)
        self._bytes = 0
        self._lock = Lock()

    def get(self, key: str, now: float) -> Any | None:
        with self._lock:
            item = self._items.get(key)
            if item is None:
                return None
            if now >= item[1]:
                self._drop(key)
                return None
            self._items.move_to_end(key)
            return item[0]

    def put(self, key: str, value: Any, expires: float) -> None:
        limit = self._limit()
        size = _size(value)
        if size is None or (size := size + sys.getsizeof(key) + _OVERHEAD) > limit // 8:
            return
        with self._lock:
            if key in self._items:
                self._drop(key)
            self._items[key] = (value, expires, size)
            self._bytes += size
            while self._bytes > limit:
                self._drop(next(iter(self._items)))

    def _drop(self, key: str) -> None:
        self._bytes -= self._items.pop(key)[2]

    @property
    def size(self) -> int:
        """The bytes the copies take."""
        return self._bytes

    def __len__(self) -> int:
        return len(self._items)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self._bytes = 0


copies = Copies(lambda: settings.CUPBOARD_LOCAL_COPY_BYTES)


def get(key: str) -> Any | None:
    """The value under versioned `key`: this process's copy, else the shared cache's (copied
    here when it may be); None when neither holds it."""
    now = time.time()
    value = copies.get(key, now)
    if value is not None:
        return value
    stored = cache.get(key)
    if not isinstance(stored, Stored) or now >= stored.expires:
        return None
    copies.put(key, stored.value, stored.expires)
    return stored.value


def put(key: str, value: Any, timeout: int) -> None:
    """Keep `value` under versioned `key` for `timeout` seconds, in the shared cache and here."""
    stored = Stored(value=value, expires=time.time() + timeout)  # before the cache's own clock starts
    cache.set(key, stored, timeout)
    copies.put(key, value, stored.expires)


def cached(key: str, build: Callable[[], T | None], timeout: int) -> T | None:
    """The value under versioned `key`, else `build()`'s, kept for `timeout` seconds (None: not kept)."""
    value = get(key)
    if value is None:
        value = build()
        if value is not None:
            put(key, value, timeout)
    return value
