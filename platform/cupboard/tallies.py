"""Counts that every process adds to and the metrics endpoint reads: HTTP answers by status
class, throttled requests (429s), leaderboard refreshes and updates and the time they took.

They live in the cache (CUPBOARD_CACHE_URL): with Redis, every web process and worker on
every host adds to the same numbers, as Prometheus counters expect; with the default local
cache, each process counts its own. A count is an atomic `incr`, never a database write (a GET
never writes) and never a reason to fail: a cache that cannot be reached loses the count,
logged once, not the request. Counters start again from zero when the cache is emptied, which
Prometheus reads as a counter reset.
"""
import logging
import time
from collections.abc import Iterator
from contextlib import contextmanager

from django.core.cache import caches

from cupboard.redis_cache import SharedClientRedisCache

logger = logging.getLogger(__name__)

PREFIX = "tally:"
STATUS_CLASSES = ("1xx", "2xx", "3xx", "4xx", "5xx")
# Every tally the endpoint reads (a cache cannot list its keys): name -> what it counts.
NAMES = {
    **{f"http_{status_class}": f"HTTP answers with a {status_class} status" for status_class in STATUS_CLASSES},
    "http_throttled": "HTTP answers 429 Too Many Requests",
    "leaderboard_refreshes": "leaderboard refreshes finished",
    "leaderboard_refresh_ms": "milliseconds spent in leaderboard refreshes",
    "leaderboard_updates": "leaderboard row updates after a scoring finished",
    "leaderboard_update_ms": "milliseconds spent in leaderboard row updates",
}
_warned = False


def tally(name: str, amount: int = 1) -> None:
    """Add `amount` to the tally `name` (one of NAMES)."""
    global _warned
    key = PREFIX + name
    try:
        # The default cache itself, not django.core.cache.cache: a proxy, which no isinstance sees through.
        counts = caches["default"]
        if isinstance(counts, SharedClientRedisCache):
            counts.count(key, amount)  # one round trip
            return
        try:
            counts.incr(key, amount)
        except ValueError:  # not there yet (or evicted): start it; a racing add loses nothing
            if not counts.add(key, amount, timeout=None):
                counts.incr(key, amount)
    except Exception as error:  # noqa: BLE001 - a count is never worth a failed request
        if not _warned:
            logger.warning("tallies: the cache cannot be reached (%s: %s); counts are lost meanwhile",
                           type(error).__name__, error)
            _warned = True


def tallies() -> dict[str, int]:
    """Every tally's current value (0 for one never added to)."""
    stored = caches["default"].get_many([PREFIX + name for name in NAMES])
    return {name: int(stored.get(PREFIX + name, 0)) for name in NAMES}


@contextmanager
def timed(count: str, milliseconds: str) -> Iterator[None]:
    """Count one of something and add the milliseconds it took, when it finishes without error."""
    started = time.monotonic()
    yield
    tally(count)
    tally(milliseconds, round((time.monotonic() - started) * 1000))


class ResponseTallyMiddleware:
    """Counts every answer by status class (and 429s on their own), outage 503s included."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        status = response.status_code
        if 100 <= status < 600:
            tally(f"http_{status // 100}xx")
        if status == 429:
            tally("http_throttled")
        return response
