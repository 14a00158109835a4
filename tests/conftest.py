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
# ... and those whose rows another connection (a thread, a process, a server) sees committed.
COMMITTING_FIXTURES = {"transactional_db", "live_server"}

# The files the PostgreSQL pass runs whole, besides the tests that commit, start real processes
# or test a migration (runs_on_postgres): what they exercise PostgreSQL answers differently from
# SQLite within one connection. Row locks' SQL (cupboard/locking.py: FOR NO KEY UPDATE OF, each
# shape of `locked()` and its callers: uploads, grants, scoring, refreshes, schedules, roles,
# pools, archives, freezes); jsonb (key order, keys read as text or numbers, Greatest over NULLs);
# raw SQL and connection handling (board cache, health, outages, the page cache and the kept
# files it serves, the job engine); an IntegrityError inside a transaction (teams, paper marks);
# backups and restores (sequences, TRUNCATE, snapshots). docs/development.md says when to add one.
POSTGRES_FILES = tuple(f"tests/{path}" for path in (
    "audit/", "jobs/", "operations/",
    "competitions/test_commitments.py", "competitions/test_competition_load.py",
    "competitions/test_manage_board_rules.py", "competitions/test_manage_schedule.py",
    "competitions/test_nothing_public_hidden.py",
    "competitions/test_organizer_roles.py", "competitions/test_page_cache.py",
    "competitions/test_qrels_release.py", "competitions/test_topic_variants.py",
    "judging/test_pool_numbers.py", "judging/test_reassignment.py",
    "leaderboards/test_as_of_refusals.py", "leaderboards/test_cache.py", "leaderboards/test_exports.py",
    "leaderboards/test_freeze.py", "leaderboards/test_frozen_snapshot.py",
    "leaderboards/test_incremental_update.py", "leaderboards/test_json_for_scripts.py",
    "leaderboards/test_metadata_filter.py", "leaderboards/test_paper_tables.py",
    "leaderboards/test_rank_bands.py", "leaderboards/test_refresh.py", "leaderboards/test_rescore_step.py",
    "leaderboards/test_results_archive.py",
    "notifications/test_due_mails.py",
    "project/test_get_never_writes.py", "project/test_health.py", "project/test_outages.py",
    "rules/test_cup_timeline.py",
    "submissions/test_baselines.py", "submissions/test_final_selection.py", "submissions/test_kept_pages.py",
    "submissions/test_per_topic.py", "submissions/test_per_topic_bytes.py", "submissions/test_queue.py",
    "submissions/test_quota.py", "submissions/test_retention.py", "submissions/test_submission_create.py",
    "submissions/test_submission_score.py", "submissions/test_sweep_stale.py",
    "submissions/test_topics_change.py", "submissions/test_verification.py",
    "systems/test_system_upload.py",
    "teams/test_team_merge.py", "teams/test_team_services.py",
))


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


def commits(item) -> bool:
    """Whether a test's rows are committed, for other connections to see (a TransactionTestCase,
    `django_db(transaction=True)`, `transactional_db`, `live_server`), not rolled back unseen."""
    mark = item.get_closest_marker("django_db")
    if mark and (mark.kwargs.get("transaction") or (mark.args and mark.args[0])):
        return True
    if COMMITTING_FIXTURES & set(getattr(item, "fixturenames", ())):
        return True
    from django.test import TestCase, TransactionTestCase

    cls = getattr(item, "cls", None)
    return cls is not None and issubclass(cls, TransactionTestCase) and not issubclass(cls, TestCase)


def runs_on_postgres(item) -> bool:
    """The PostgreSQL pass's rule (docs/development.md): a test on the session's database that
    PostgreSQL can answer differently from SQLite. Marked `postgres`, or reaching the database
    and committing, starting a real worker or broker, testing a migration, or in POSTGRES_FILES.
    Never a browser test, nor a slow one about neither PostgreSQL nor a worker: they run once."""
    path = item.nodeid.split("::")[0]
    marks = {name for name in ("postgres", "worker", "redis", "slow", "browser") if item.get_closest_marker(name)}
    if "browser" in marks or ("slow" in marks and not {"postgres", "worker"} & marks):
        return False
    if "postgres" in marks:
        return True
    return uses_the_database(item) and bool(
        {"worker", "redis"} & marks or commits(item) or "migration" in path or path.startswith(POSTGRES_FILES))


# Modules started first, in this order, before the slow ones: the longest in wall time that mostly
# wait (`--durations` summed per file; docs/development.md): the PostgreSQL pass's on real workers,
# the sandbox's on its limits (40 s of sleeping systems for 2 s of CPU). Most hold no test slow
# enough for the mark, and each file goes whole to one xdist worker: started late, one of them was
# the pass's tail, one worker on it while the other had nothing left.
LONGEST_FIRST = tuple(f"tests/{path}" for path in (
    "jobs/test_kinds_with_a_real_worker.py", "submissions/test_worker.py",
    "submissions/test_queue_with_a_worker.py", "leaderboards/test_incremental_update.py",
    "jobs/test_follow_ups_with_a_real_worker.py", "systems/test_sandbox.py",
))


def slow_modules_first(items: list) -> None:
    """LONGEST_FIRST, then the other modules holding a slow test, run first, each kept whole: a
    long test scheduled last keeps one xdist worker busy while the other has nothing left. The
    Makefile's `--dist loadfile --no-loadscope-reorder` sends each file whole to one worker (a
    module's fixtures, an e2e stack or the production install, are built once) in the order of
    each file's first test."""
    slow = {item.module.__name__ for item in items if item.get_closest_marker("slow") and hasattr(item, "module")}

    def rank(item) -> tuple[int, bool]:
        path = item.nodeid.split("::")[0]
        first = LONGEST_FIRST.index(path) if path in LONGEST_FIRST else len(LONGEST_FIRST)
        return first, getattr(getattr(item, "module", None), "__name__", None) not in slow
    items.sort(key=rank)


def pytest_configure(config):
    """The suite's in-memory cache serves its own process only, and every test reads it there: a
    deletion reaches every reader, as a shared cache's does (settings.CUPBOARD_CACHE_SHARED). The
    servers and workers the end-to-end tests start keep their own setting. Each process's own
    copies of versioned entries (cupboard/local_copies.py) are kept as in front of Redis, so every
    kept page's test reads through them."""
    from django.conf import settings

    settings.CUPBOARD_CACHE_SHARED = True
    settings.CUPBOARD_LOCAL_COPY_BYTES = 32 * 1024 * 1024


@pytest.hookimpl(wrapper=True)
def pytest_collection_modifyitems(config, items):
    """Marks before any plugin's own hook (`-m` selects by postgres_pass); the order after them
    all: pytest-django sorts the tests by kind (rolled back, committing, no database), which put
    every slow module's file behind the files of rolled-back tests."""
    _mark(items)
    yield
    slow_modules_first(items)


def _mark(items: list) -> None:
    for item in items:
        if runs_on_postgres(item):
            item.add_marker(pytest.mark.postgres_pass)
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


@pytest.fixture(autouse=True, scope="session")
def _flush_outlasting_deadlocks():
    """On PostgreSQL, a teardown's flush aborted by a deadlock with a real worker is run again
    (tests/flush_retries.py)."""
    from django.conf import settings

    if settings.DATABASES["default"]["ENGINE"] != "django.db.backends.postgresql":
        yield
        return
    from django.db.backends.postgresql.operations import DatabaseOperations

    from tests.flush_retries import retrying_deadlocks

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(DatabaseOperations, "execute_sql_flush", retrying_deadlocks(DatabaseOperations.execute_sql_flush))
        yield


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
def _fresh_local_copies():
    """A process's copies of versioned entries (cupboard/local_copies.py) and of sessions' lookups
    (accounts/signed_in.py) go with the cache they copy: a test's rolled-back rows repeat the next
    test's ids, and so its keys."""
    from cupboard.accounts import signed_in
    from cupboard.local_copies import copies

    copies.clear()
    signed_in._copies.clear()


@pytest.fixture(autouse=True)
def _fresh_read_caches():
    """Scoring keeps topics and Evaluators per process (submissions/readcache.py); each test
    starts without them, so one test's files never answer for another's."""
    from cupboard.submissions import readcache

    readcache.topic_ids.clear()
    readcache.evaluators.clear()
