"""The stale sweep (run by beat): silent work queued again, lost messages sent again.

Running work whose worker said nothing for the kind's stale period is put back (its worker
was killed or froze; if it wakes up, its claim no longer holds and its writes change nothing)
and sent again. Waiting work whose message went out longer than `resend_after` ago is sent
again (a broker outage at the send, a message lost with a broker). Each row is sent again at
most once per `resend_after`, and a sweep handles at most `sweep_limit` rows of each sort,
oldest first, so a long outage ends with a steady trickle, not a flood. A row out of attempts
is given up with the kind's `give_up`, never dropped silently.
"""
from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime, timedelta

from django.db import transaction
from django.db.models import Q, QuerySet
from django.db.models.functions import Coalesce
from django.utils import timezone

from .claims import silent, with_last_sign_of_life
from .kinds import JobKind
from .sending import job_enqueue

logger = logging.getLogger(__name__)


def _out_of_attempts(kind: JobKind, row: dict) -> bool:
    return kind.max_attempts is not None and row["attempts"] >= kind.max_attempts()


def _candidates(kind: JobKind, rows: QuerySet, order: str) -> list[dict]:
    if kind.give_up is None:
        rows = rows.filter(kind.under_limit())  # out of attempts: left as they are
    return list(rows.order_by(order, "pk").values()[:kind.sweep_limit])


def job_sweep(kind: JobKind, *, now: datetime | None = None) -> dict[str, int]:
    """Sweep the kind's stale rows once; returns counts for the log: put_back (silent work put
    back), resent (a lost message sent again), failed (given up, out of attempts)."""
    now = now or timezone.now()
    counts = {"put_back": 0, "resent": 0, "failed": 0}
    again: list[int] = []
    pk = kind.model._meta.pk.attname
    for row in _candidates(kind, with_last_sign_of_life(kind).filter(silent(kind, now)), "last_sign_of_life"):
        # Unchanged since we read it: a heartbeat in between means the worker is alive after all.
        same = kind.model.objects.filter(kind.running, pk=row[pk], claimed_at=row["claimed_at"],
                                          heartbeat_at=row["heartbeat_at"])
        if kind.give_up and _out_of_attempts(kind, row):
            counts["failed"] += _give_up(kind, kind.give_up, same, row, row[pk])
        elif same.update(**kind.put_back, queued_at=now):
            counts["put_back"] += 1
            again.append(row[pk])
    lost = kind.waiting & Q(last_sent__lt=now - timedelta(seconds=kind.resend_after()))
    waiting = kind.model.objects.alias(last_sent=Coalesce("queued_at", "created_at")).filter(lost)
    for row in _candidates(kind, waiting, "last_sent"):
        same = kind.model.objects.filter(kind.waiting, pk=row[pk], queued_at=row["queued_at"])
        if kind.give_up and _out_of_attempts(kind, row):
            counts["failed"] += _give_up(kind, kind.give_up, same, row, row[pk])
        elif same.update(queued_at=now):
            counts["resent"] += 1
            again.append(row[pk])
    job_enqueue(kind, again)
    if counts["put_back"] or counts["failed"]:
        logger.info("%s sweep: %s", kind.name, counts)
    return counts


def _give_up(kind: JobKind, give_up: Callable[[dict], dict], same: QuerySet, row: dict, pk: int) -> int:
    """One transaction: what the kind tells of it (a mail, an audit entry) is written with the failure or not at all."""
    with transaction.atomic():
        failed = same.update(**give_up(row))
        if failed and kind.gave_up:
            kind.gave_up(pk)
    return failed
