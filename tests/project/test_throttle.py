"""The sliding-window counter under the rate limits, and the client address it keys on."""
from ipaddress import ip_network

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.test import RequestFactory, override_settings

from cupboard.envconfig import rates_from_env
from cupboard.throttle import Rate, client_address, throttle_count, throttle_take, throttle_wait

RATES = {"login-account": "3/m", "api-token": "2/10s"}


def test_it_reads_rates():
    assert Rate.parse("10/15m") == Rate(10, 900)
    assert Rate.parse("5/h") == Rate(5, 3600)
    assert Rate.parse("3/30s") == Rate(3, 30) == Rate.parse("3/30")
    with pytest.raises(ImproperlyConfigured):
        Rate.parse("ten per minute")
    assert rates_from_env("api-token=5/m", {"api-token": "60/m", "x": "1/h"}) == {"api-token": "5/m", "x": "1/h"}
    for bad in ("nope=5/m", "api-token=5 a minute", "api-token=0/m"):
        with pytest.raises(ImproperlyConfigured):
            rates_from_env(bad, {"api-token": "60/m"})


@override_settings(CUPBOARD_RATES=RATES)
def test_it_refuses_past_the_rate_and_forgets_smoothly():
    t = 6000.0  # the start of a one-minute window
    for _ in range(3):
        assert throttle_wait("login-account", "ada", now=t) == 0
        throttle_count("login-account", "ada", now=t)
    assert throttle_wait("login-account", "ada", now=t) == 60  # the next window
    assert throttle_wait("login-account", "bob", now=t) == 0  # another key
    # Into the next window the three weigh less and less: room for one more at once...
    assert throttle_wait("login-account", "ada", now=t + 61) == 0
    throttle_count("login-account", "ada", now=t + 61)
    # ...but not for two: 3 * 59/60 + 1 >= 3 until a third of the window has passed.
    assert throttle_wait("login-account", "ada", now=t + 61) in (19, 20)  # float rounding: ceil
    assert throttle_wait("login-account", "ada", now=t + 81) == 0


@override_settings(CUPBOARD_RATES=RATES)
def test_it_counts_refused_takes_so_hammering_stays_refused():
    t = 7000.0
    assert [throttle_take("api-token", "tok", now=t) for _ in range(4)] == [0, 0, 10, 14]
    assert throttle_take("api-token", "tok", now=t + 10) > 0  # four in the last window weigh ~4 > 2
    assert throttle_take("api-token", "tok", now=t + 19.9) == 0  # after most of another window


def test_it_trusts_x_forwarded_for_only_behind_the_proxy():
    request = RequestFactory().get("/", REMOTE_ADDR="10.0.0.2", HTTP_X_FORWARDED_FOR="6.6.6.6, 203.0.113.7")
    assert client_address(request) == "10.0.0.2"  # no proxy configured: nobody's header is believed
    with override_settings(CUPBOARD_TRUSTED_PROXIES=(ip_network("10.0.0.0/24"),)):
        assert client_address(request) == "203.0.113.7"  # appended by our proxy; 6.6.6.6 is the client's claim
        assert client_address(RequestFactory().get("/", REMOTE_ADDR="10.0.0.2")) == "10.0.0.2"
        # Two proxies of ours in a row: the client is the last address that is not one of them.
        chained = RequestFactory().get("/", REMOTE_ADDR="10.0.0.2", HTTP_X_FORWARDED_FOR="6.6.6.6, 203.0.113.7, 10.0.0.9")
        assert client_address(chained) == "203.0.113.7"
        # Someone else's header, even one naming our proxy, is ignored.
        forged = RequestFactory().get("/", REMOTE_ADDR="198.51.100.1", HTTP_X_FORWARDED_FOR="203.0.113.7")
        assert client_address(forged) == "198.51.100.1"


@pytest.mark.redis
def test_it_lets_exactly_the_rate_through_concurrent_requests_on_redis():
    """On the production cache, 20 requests at once with room for 5: exactly 5 pass (the count
    is Redis's atomic INCR). Uses the Redis db of CELERY_BROKER_URL when it is Redis (each
    developer's own), else db 13, the SQLite pass's (project/test_health.py's): 14 and 15 are the
    PostgreSQL pass's brokers, which `make test` runs beside it."""
    import os
    import time
    from concurrent.futures import ThreadPoolExecutor

    from django.core.cache import caches

    broker = os.getenv("CELERY_BROKER_URL", "")
    location = broker if broker.startswith("redis://") else "redis://127.0.0.1:6379/13"
    cache = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": location,
                         "KEY_PREFIX": "throttle-test"}}
    # A key of its own, expiring within two minutes: never clear() here, the db holds a broker's queues.
    key = f"token-{os.getpid()}-{time.time()}"
    with override_settings(CACHES=cache, CUPBOARD_RATES={"api-token": "5/m"}):
        assert caches["default"].__class__.__name__ == "RedisCache"
        with ThreadPoolExecutor(max_workers=20) as pool:
            waits = list(pool.map(lambda _: throttle_take("api-token", key), range(20)))
    assert waits.count(0) == 5
