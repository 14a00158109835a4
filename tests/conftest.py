"""Test set-up shared by every test: fast hashing, private storage in a temp folder,
and skips with a reason where a real part (PostgreSQL, Redis, chromium, shared data) is absent."""
import os
import socket
from pathlib import Path

import pytest

import tests.migrated  # noqa: F401  (SQLite test databases copied from one migrated once)

# ../shared/data beside the checkout; CUPBOARD_SHARED_DATA names it for a checkout elsewhere (a worktree)
SHARED_DATA = Path(os.getenv("CUPBOARD_SHARED_DATA") or Path(__file__).resolve().parents[2] / "shared" / "data")


def port_open(port: int, host: str = "127.0.0.1") -> bool:
    with socket.socket() as sock:
        sock.settimeout(0.5)
        return sock.connect_ex((host, port)) == 0


# Fixtures that hand a test the session's database (pytest-django's, and those built on them).
DATABASE_FIXTURES = {"db", "transactional_db", "django_db_setup", "live_server"}


def uses_the_database(item) -> bool:
    """Whether a test reaches the session's database (DATABASE_URL): a django_db mark, a fixture
    that needs it, or a Django TestCase. Not the e2e stacks: they run on SQLite files of their own."""
    if item.get_closest_marker("django_db") or DATABASE_FIXTURES & set(getattr(item, "fixturenames", ())):
        return True
    cls = getattr(item, "cls", None)
    if cls is None:
        return False
    from django.test import TransactionTestCase

    return issubclass(cls, TransactionTestCase)


def slow_modules_first(items: list) -> None:
    """The modules holding a slow test run first, each kept whole: a long test scheduled last keeps
    one xdist worker busy while the other has nothing left. The Makefile's `--dist loadfile
    --no-loadscope-reorder` sends each file whole to one worker (a module's fixtures, an e2e stack
    or the production install, are built once) in this order."""
    slow = {item.module.__name__ for item in items if item.get_closest_marker("slow") and hasattr(item, "module")}
    items.sort(key=lambda item: getattr(getattr(item, "module", None), "__name__", None) not in slow)


@pytest.hookimpl(tryfirst=True)  # before `-m` selects: the mark below must be there to select by
def pytest_collection_modifyitems(config, items):
    slow_modules_first(items)
    for item in items:
        if item.get_closest_marker("postgres") or uses_the_database(item):
            item.add_marker(pytest.mark.database)
    reasons = {
        "postgres": None if os.getenv("DATABASE_URL", "").startswith("postgres")
        else "needs DATABASE_URL=postgres://... (make test-postgres sets it)",
        "redis": None if port_open(6379) else "no Redis on 127.0.0.1:6379",
        "browser": None if Path("/usr/bin/chromium").exists() else "no /usr/bin/chromium (make browser installs it)",
        "shared_data": None if SHARED_DATA.is_dir() else f"{SHARED_DATA} is absent (CI has it)",
    }
    for item in items:
        for marker, reason in reasons.items():
            if reason and item.get_closest_marker(marker):
                item.add_marker(pytest.mark.skip(reason=reason))


@pytest.fixture
def shared_data() -> Path:
    if not SHARED_DATA.is_dir():
        pytest.skip(f"{SHARED_DATA} is absent (CI has it)")
    return SHARED_DATA


@pytest.fixture(scope="session")
def trec_eval() -> Path:
    """trec_eval 10 built from its source (evaluator/reference.py), the reference every
    measure is compared with; skipped with the reason where it cannot be built."""
    from evaluator.reference import trec_eval_binary, why_not

    reason = why_not()
    if reason:
        pytest.skip(reason)
    return trec_eval_binary()


@pytest.fixture(autouse=True)
def fresh_rate_limits():
    """Rate-limit counters live in the (per-process) cache: each test starts with none."""
    from django.core.cache import caches
    from django.core.cache.backends.locmem import LocMemCache

    if isinstance(caches["default"], LocMemCache):  # never flush a shared Redis db
        caches["default"].clear()


@pytest.fixture(autouse=True)
def _fresh_board_states():
    """Web processes keep leaderboard states for a second (leaderboards/cache.py); a test's
    rolled-back rows must not answer for the next test's."""
    from cupboard.leaderboards.cache import forget_recent_states

    forget_recent_states()


@pytest.fixture(autouse=True)
def _fresh_read_caches():
    """Scoring keeps topics and Evaluators per process (submissions/readcache.py); each test
    starts without them, so one test's files never answer for another's."""
    from cupboard.submissions import readcache

    readcache.topic_ids.clear()
    readcache.evaluators.clear()
