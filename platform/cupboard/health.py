"""`/healthz` and `/readyz`: what a load balancer or an orchestrator asks a web process.

- `/healthz` (liveness) answers 200 as long as the process can answer at all. It does no
  I/O, so a database outage never makes an orchestrator restart healthy web processes.
- `/readyz` (readiness) checks, each within `TIMEOUT` seconds and side by side, that the
  database, the broker, the cache and the private storage can be reached, and names each in
  its JSON body. One that cannot: 503 with Retry-After, so the balancer sends visitors to
  another process until it is back.

`/readyz` is open to anyone and each check costs the parts something (a database connection,
three billable calls to a bucket, a broker connection): 125 requests a second were 125 new
PostgreSQL connections a second. So a process checks at most once every `FRESH_SECONDS`, one
round at a time (requests meanwhile wait for the round under way, or get the last answer), and
never starts a part's check while that part's previous one is still running: a part that
hangs holds one thread, named as down, instead of one more thread per request.

Both are answered by `HealthMiddleware`, first in MIDDLEWARE: before host validation (a
probe addresses the process by its IP, not by a name in ALLOWED_HOSTS), before the HTTPS
redirect, sessions and the outage page. Their bodies name a failing part and the kind of its
error, never a host, a URL or a credential; the log has the whole error.
"""
import logging
import threading
import time
import uuid
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FuturesTimeout

from django.core.cache import cache
from django.core.files.base import ContentFile
from django.core.files.storage import storages
from django.db import close_old_connections, connection
from django.http import HttpRequest, HttpResponse, JsonResponse

logger = logging.getLogger(__name__)

TIMEOUT = 3.0  # seconds for each part; a probe's own timeout is usually a little longer
RETRY_AFTER = 10
PROBE_NAME = "health/readyz-probe"
FRESH_SECONDS = 1.0  # how long a process answers /readyz with its last round's result


def check_database() -> None:
    """A round trip to the database, on a connection of this thread (closed afterwards)."""
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    finally:
        connection.close()


def check_broker() -> None:
    """A connection to the broker, given up after TIMEOUT (no retries: a probe must be quick)."""
    from cupboard.celery import app

    with app.connection_for_write() as conn:
        conn.ensure_connection(max_retries=1, timeout=TIMEOUT)


def check_cache() -> None:
    """A value written and read back: a cache that takes writes but loses them is not ready."""
    key, value = f"readyz:{uuid.uuid4().hex}", uuid.uuid4().hex
    cache.set(key, value, timeout=30)
    try:
        if cache.get(key) != value:
            raise RuntimeError("a value written to the cache was not read back")
    finally:
        cache.delete(key)


def check_storage() -> None:
    """A small file written to, read from and removed from the private storage (the disk or the
    bucket that run files, topics and hidden judgments live in)."""
    storage = storages["private"]
    name = storage.save(f"{PROBE_NAME}-{uuid.uuid4().hex}", ContentFile(b"ok"))
    try:
        with storage.open(name) as stored:
            if stored.read() != b"ok":
                raise RuntimeError("a file written to the storage was not read back")
    finally:
        storage.delete(name)


CHECKS: dict[str, Callable[[], None]] = {
    "database": check_database,
    "broker": check_broker,
    "cache": check_cache,
    "storage": check_storage,
}


def _timed(check: Callable[[], None]) -> float:
    started = time.monotonic()
    try:
        check()
    finally:
        close_old_connections()
    return round((time.monotonic() - started) * 1000, 1)


# Each part's check still running from an earlier round (one that hung past its timeout).
_running: dict[str, Future] = {}


def readiness(checks: dict[str, Callable[[], None]] | None = None, timeout: float = TIMEOUT) -> dict:
    """Each part's state: {"ok": True, "ms": 1.2} or {"ok": False, "error": "..."}.

    The checks run side by side in threads, so a part that hangs costs `timeout`, not the sum;
    one whose previous check is still running is not checked again (it is down).
    """
    checks = CHECKS if checks is None else checks
    results: dict[str, dict] = {}
    pool = ThreadPoolExecutor(max_workers=len(checks), thread_name_prefix="readyz")
    futures = {}
    for name, check in checks.items():
        earlier = _running.get(name)
        if earlier is not None and not earlier.done():
            results[name] = {"ok": False, "error": "its previous check has not answered yet"}
        else:
            futures[name] = _running[name] = pool.submit(_timed, check)
    deadline = time.monotonic() + timeout
    for name, future in futures.items():
        try:
            results[name] = {"ok": True, "ms": future.result(timeout=max(0.0, deadline - time.monotonic()))}
        except FuturesTimeout:
            logger.warning("readyz: %s did not answer within %.1f s", name, timeout)
            results[name] = {"ok": False, "error": f"no answer within {timeout:g} s"}
        except Exception as error:  # noqa: BLE001 - any failure of a part means "not ready"
            logger.warning("readyz: %s failed: %s: %s", name, type(error).__name__, error)
            results[name] = {"ok": False, "error": type(error).__name__}
    pool.shutdown(wait=False, cancel_futures=True)  # a hung check must not hold the answer
    return {name: results[name] for name in checks}


def _answer(body: dict, status: int) -> HttpResponse:
    response = JsonResponse(body, status=status)
    response["Cache-Control"] = "no-store"
    if status == 503:
        response["Retry-After"] = str(RETRY_AFTER)
    return response


def healthz() -> HttpResponse:
    return _answer({"status": "ok"}, 200)


_round = threading.Lock()
_last: tuple[float, dict, int] | None = None  # (when, body, status) of the last round


def readyz() -> HttpResponse:
    """The last round's answer while it is fresh; else a new round, one at a time."""
    global _last
    with _round:
        if _last is None or time.monotonic() - _last[0] >= FRESH_SECONDS:
            parts = readiness()
            down = [name for name, state in parts.items() if not state["ok"]]
            _last = (time.monotonic(), {"status": "unavailable" if down else "ok", "down": down, "checks": parts},
                     503 if down else 200)
        body, status = _last[1], _last[2]
    return _answer(body, status)


ANSWERS = {"/healthz": healthz, "/readyz": readyz}


class HealthMiddleware:
    """Answers GET/HEAD /healthz and /readyz before any other middleware (module docstring)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        answer = ANSWERS.get(request.path_info.rstrip("/") or "/")
        if answer is None or request.method not in ("GET", "HEAD"):
            return self.get_response(request)
        return answer()
