"""A teardown's flush that a deadlock aborted is run again (tests/flush_retries.py): another
connection, as a worker would, holds a table the flush's TRUNCATE has yet to take, then reads
one it took. PostgreSQL aborts the flush, which waited first; the next try gets through."""
import threading

import psycopg
import pytest
from django.core.management.color import no_style
from django.db import connection

from tests.waiting import wait_until

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]
FIRST, LAST = "django_admin_log", "django_session"  # taken in this order; no foreign key points at either


def _connect(**options) -> psycopg.Connection:
    settings = connection.settings_dict
    return psycopg.connect(dbname=settings["NAME"], user=settings["USER"], host=settings["HOST"],
                           port=settings["PORT"] or 5432, **options)


def _deadlocks(monitor: psycopg.Connection) -> int:
    return monitor.execute("SELECT deadlocks FROM pg_stat_database WHERE datname = current_database()").fetchone()[0]


def test_a_flush_a_deadlock_aborted_is_run_again():
    with _connect(autocommit=True) as monitor, _connect() as worker:
        before = _deadlocks(monitor)
        worker.execute(f'SELECT 1 FROM "{LAST}" LIMIT 1')  # holds LAST until it commits

        def worker_reads_first():
            wait_until(lambda: monitor.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE 'TRUNCATE%%'"
            ).fetchone()[0], what="the flush waiting for the table the worker holds")
            worker.execute(f'SELECT 1 FROM "{FIRST}" LIMIT 1')  # waits for the flush: a deadlock
            worker.commit()

        thread = threading.Thread(target=worker_reads_first)
        thread.start()
        try:
            connection.ops.execute_sql_flush(connection.ops.sql_flush(no_style(), [FIRST, LAST]))
        finally:
            thread.join()
        wait_until(lambda: _deadlocks(monitor) > before, what="PostgreSQL counting the deadlock")
