"""Two organizers' systems uploaded at once are numbered one after the other (PostgreSQL).

An organizers' system has no team (team NULL), and PostgreSQL's unique constraint on (phase,
team, number) counts no two NULLs as equal: it would take two organizers' systems #1. What
keeps their numbers apart is the phase's row lock that `system_upload` takes for them
(systems/services.py, 3 in cupboard/locking.py): the second upload waits for the first to
commit, then counts its system.
"""
import threading

import pytest
from django.db import connection, transaction

from cupboard.systems.models import System
from cupboard.systems.services import system_upload
from tests.systems.conftest import image_upload
from tests.waiting import PATIENCE, wait_until

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def _blocked_by_me(pid: int) -> bool:
    """Whether the backend `pid` waits for a lock this connection holds (pg_locks is read live,
    unlike pg_stat_activity, whose snapshot lasts the transaction)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid() = ANY(pg_blocking_pids(%s))", [pid])
        return cursor.fetchone()[0]


def test_an_organizers_system_uploaded_while_another_commits_gets_the_next_number(blind):
    def upload(name: str) -> System:
        return system_upload(phase=blind.dev, team=None, user=blind.organizer, image=image_upload(),
                             method_name=name, as_organizers=True)

    second: dict = {}

    def upload_second() -> None:
        try:
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_backend_pid()")
                second["pid"] = cursor.fetchone()[0]
            second["system"] = upload("second")
        except BaseException as error:  # noqa: BLE001 - reported by the test
            second["error"] = error
        finally:
            connection.close()  # the thread had its own connection

    with transaction.atomic():  # the first upload's transaction, held open: its phase lock with it
        first = upload("first")
        thread = threading.Thread(target=upload_second)
        thread.start()
        # Either the second upload waits for this transaction's lock, or (without the lock) it
        # has already counted the organizers' systems without the uncommitted first one.
        wait_until(lambda: not thread.is_alive() or ("pid" in second and _blocked_by_me(second["pid"])),
                   what="the second upload to wait for the first's phase lock, or to finish")
        finished_before_commit = not thread.is_alive()
    thread.join(timeout=PATIENCE)
    assert "error" not in second, second.get("error")
    assert (first.number, second["system"].number) == (1, 2), "two organizers' systems with one number"
    assert not finished_before_commit, "the second organizers' upload did not wait for the first's phase lock"
    assert sorted(System.objects.filter(phase=blind.dev, team=None).values_list("number", flat=True)) == [1, 2]
