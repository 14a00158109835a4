"""Rate limits kept in Django's cache: log-in failures per account (from one client network and
from anywhere), sign-ups, team creations and past boards per client network (an IPv4 address,
an IPv6 /64), API requests per token.

Why our own and not a library: django-axes covers log-ins only (and adds models, a backend
and a middleware), django-ratelimit counts fixed windows, which let twice the rate through
around a window's edge. This module is one sliding-window counter (the previous window's
count, weighted by how much of it still overlaps, plus the current one): it behaves like a
token bucket refilled continuously, yet needs only `cache.add` and `cache.incr`, which are
atomic on Redis, Memcached and the database cache. A real token bucket would read and then
write back (tokens, time) and Django's cache has no compare-and-set, so two requests at once
could both take the last token.

The cache must be shared by every web process (`CUPBOARD_CACHE_URL=redis://...` in
production; the default local-memory cache counts per process, fine on a laptop).

Rates are "count/period" (`10/15m`, `5/h`, `60/m`, `3/30s`), from `settings.CUPBOARD_RATES`.
"""
from __future__ import annotations

import hashlib
import ipaddress
import math
import time
from dataclasses import dataclass

from django.conf import settings
from django.core.cache import cache
from django.core.exceptions import ImproperlyConfigured

from cupboard.proxies import trusted_proxy

_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


@dataclass(frozen=True)
class Rate:
    count: int
    seconds: int

    @classmethod
    def parse(cls, text: str) -> Rate:
        """`10/15m` -> 10 per 900 seconds."""
        try:
            count, period = text.strip().split("/")
            amount, unit = (period[:-1] or "1", period[-1]) if period[-1] in _UNITS else (period, "s")
            rate = cls(int(count), int(amount) * _UNITS[unit])
        except (ValueError, IndexError):
            raise ImproperlyConfigured(f"rate {text!r}: write it as count/period, e.g. 10/15m") from None
        if rate.count < 1 or rate.seconds < 1:
            raise ImproperlyConfigured(f"rate {text!r}: count and period must be positive")
        return rate


def rate_of(scope: str) -> Rate:
    return Rate.parse(settings.CUPBOARD_RATES[scope])


def client_address(request) -> str:
    """The client's IP address: the peer's, unless the peer is one of our proxies
    (CUPBOARD_TRUSTED_PROXIES); then the last X-Forwarded-For entry that is not one of them,
    the client our proxies appended. Entries before it are whatever the client sent, and the
    header of anyone else is ignored: anyone can write it."""
    address = request.META.get("REMOTE_ADDR", "")
    if not trusted_proxy(address):
        return address
    forwarded = [part.strip() for part in request.headers.get("X-Forwarded-For", "").split(",") if part.strip()]
    for hop in reversed(forwarded):
        if not trusted_proxy(hop):
            return hop
    return address


def client_network(request) -> str:
    """What limits per client count on: the client's IPv4 address, or its IPv6 /64. One IPv6
    host is given a whole /64 and may use any of its 2**64 addresses, so a limit per address
    held nothing."""
    address = client_address(request)
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return address


def _keys(scope: str, key: str, rate: Rate, now: float) -> tuple[str, str, float]:
    """Cache keys of the current and the previous window, and how far into the current one `now` is (0-1)."""
    digest = hashlib.sha256(key.encode()).hexdigest()[:32]  # no raw usernames or tokens in the cache
    window = math.floor(now / rate.seconds)
    return (f"throttle:{scope}:{digest}:{window}", f"throttle:{scope}:{digest}:{window - 1}",
            now / rate.seconds - window)


def _wait(rate: Rate, previous: int, current: int, elapsed: float) -> int:
    """Seconds until previous * (1 - elapsed) + current falls below the rate (0: it is below now)."""
    if previous * (1 - elapsed) + current < rate.count:
        return 0
    if current < rate.count:  # within this window, once the previous one weighs little enough
        return max(1, math.ceil((1 - (rate.count - current) / previous - elapsed) * rate.seconds))
    # In the next window, this one becomes the previous one.
    return max(1, math.ceil((1 - elapsed + 1 - rate.count / current) * rate.seconds))


def throttle_wait(scope: str, key: str, *, now: float | None = None) -> int:
    """Seconds until `key` may try again in `scope` (0: it may now). Counts nothing."""
    rate, now = rate_of(scope), time.time() if now is None else now
    current, previous, elapsed = _keys(scope, key, rate, now)
    counts = cache.get_many([current, previous])
    return _wait(rate, counts.get(previous, 0), counts.get(current, 0), elapsed)


def _incr(cache_key: str, rate: Rate) -> int:
    cache.add(cache_key, 0, timeout=2 * rate.seconds + 1)  # a window is read for two windows
    try:
        return cache.incr(cache_key)
    except ValueError:  # expired between add and incr
        cache.add(cache_key, 1, timeout=2 * rate.seconds + 1)
        return 1


def throttle_count(scope: str, key: str, *, now: float | None = None) -> None:
    """Count one attempt of `key` in `scope` (a failed log-in: whether it was allowed was asked before)."""
    rate, now = rate_of(scope), time.time() if now is None else now
    _incr(_keys(scope, key, rate, now)[0], rate)


def throttle_take(scope: str, key: str, *, now: float | None = None) -> int:
    """For actions limited as a whole (sign-ups, API requests): count this one and refuse it when
    it goes past the rate. Returns the seconds to wait (0: go on). The count comes first, and is
    atomic, so concurrent requests cannot all slip under the limit together; refused ones count
    too, so a client that keeps hammering stays refused."""
    rate, now = rate_of(scope), time.time() if now is None else now
    current, previous, elapsed = _keys(scope, key, rate, now)
    count = _incr(current, rate)
    # Allowed when the requests before this one left room for it.
    return _wait(rate, cache.get(previous, 0), count - 1, elapsed)
