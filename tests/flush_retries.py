"""A test's teardown flush on PostgreSQL (one TRUNCATE of every table, taking each table's
lock in turn) can deadlock with a real Celery worker still at work beside it: the worker holds
a table the TRUNCATE has yet to take and then reads one it took. PostgreSQL aborts one of the
two; when that is the flush, the next test starts on the last one's rows (a busy CI run failed
so, 2026-12-06: tests/jobs/test_follow_ups_with_a_real_worker.py, whose shared worker sweeps
every second). A transaction a deadlock aborted is meant to be run again, so the flush is."""
from __future__ import annotations

from django.db.utils import OperationalError

DEADLOCK = "40P01"  # PostgreSQL's SQLSTATE for "deadlock detected"
ATTEMPTS = 5


def deadlocked(error: OperationalError) -> bool:
    return getattr(error.__cause__, "sqlstate", None) == DEADLOCK


def retrying_deadlocks(flush):
    """`DatabaseOperations.execute_sql_flush`, run again when a deadlock aborted it: PostgreSQL
    released its locks, so the worker's transaction ends and the next try waits for it."""
    def execute_sql_flush(self, sql_list):
        for attempt in range(1, ATTEMPTS + 1):
            try:
                return flush(self, sql_list)
            except OperationalError as error:
                if not deadlocked(error) or attempt == ATTEMPTS:
                    raise
    return execute_sql_flush
