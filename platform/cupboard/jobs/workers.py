"""Which worker process holds a claim, whether it still exists, and its heartbeat.

A claim records `host:pid` (the kind's `owner` column, e.g. `Submission.claimed_by`). When a
killed pool child's message comes back (in well under a second: acks_late +
reject_on_worker_lost), the worker that receives it on the same host sees that the claiming
process is gone and takes the row at once, instead of waiting for the claim to go stale.

Claims from other hosts cannot be checked that way: they go stale when their heartbeat
stops. While a job runs, a thread of its process writes the heartbeat every
CUPBOARD_STALE_AFTER / 3 seconds, so a claim is stale only when its whole process is gone
(or frozen), never because one step takes long. A worker that is alive but stuck is stopped
by the task's time limits (settings).
"""
import logging
import os
import socket
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from django.conf import settings
from django.db import connection

logger = logging.getLogger(__name__)


def worker_id() -> str:
    """This process, as a claim records it."""
    return f"{socket.gethostname()}:{os.getpid()}"


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # exists, under another user
    try:
        # A killed child that its parent has not reaped yet is a zombie: its pid exists, it does not.
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return True


def is_gone(claimed_by: str) -> bool:
    """True when `claimed_by` names a process of this host that no longer exists. False when
    it is alive, is this very process, or ran on another host (unknown here)."""
    host, _, pid = claimed_by.rpartition(":")
    if host != socket.gethostname() or not pid.isdigit() or int(pid) == os.getpid():
        return False
    return not _pid_alive(int(pid))


def heartbeat_interval() -> float:
    return max(1.0, settings.CUPBOARD_STALE_AFTER / 3)


@contextmanager
def heartbeat(beat: Callable[[], bool]) -> Iterator[None]:
    """Call `beat()` every `heartbeat_interval()` seconds in a thread while the block runs;
    the thread stops when the block ends or `beat()` returns False (the claim was lost)."""
    stop = threading.Event()

    def run():
        try:
            while not stop.wait(heartbeat_interval()):
                try:
                    if not beat():
                        return
                except Exception as error:  # noqa: BLE001 - one missed beat (a busy SQLite) is no reason to stop
                    logger.warning("heartbeat missed: %s: %s", type(error).__name__, error)
        finally:
            connection.close()  # this thread's own connection

    thread = threading.Thread(target=run, name="cupboard-heartbeat", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join(timeout=10)
