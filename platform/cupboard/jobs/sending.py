"""Sending a job's message: after COMMIT, and never failing the caller when the broker is down.

The row is committed before its message leaves (a worker must find it). A broker that is
down is not an error for the request or task that made the work: the row waits, and the
stale sweeper sends its message again once the kind's `resend_after` has passed.
"""
from __future__ import annotations

import logging

from django.db import transaction
from django.utils.module_loading import import_string

from .kinds import JobKind

logger = logging.getLogger(__name__)


def job_send(kind: JobKind, ids: list[int]) -> int:
    """Send the messages for `ids` now (one per id, or one for all of a batch kind); returns how
    many ids went out. The first failure stops the loop, so a request never waits for one
    failed connection per row."""
    from cupboard.celery import send_task_message

    task = import_string(kind.task)
    messages = [ids] if kind.batch else [[pk] for pk in ids]
    sent = 0
    for message in messages:
        try:
            send_task_message(task, message if kind.batch else message[0])
        except Exception as error:  # noqa: BLE001 - kombu, redis, amqp and socket errors alike
            logger.warning("%s message for %s not sent (%s: %s); the stale sweeper will send it again",
                           kind.name, ids[sent:][:20], type(error).__name__, error)
            return sent
        sent += len(message)
    return sent


def job_enqueue(kind: JobKind, ids: list[int]) -> None:
    """Send the messages for `ids` once the current transaction commits (at once outside one)."""
    if ids:
        transaction.on_commit(lambda: job_send(kind, list(ids)))
