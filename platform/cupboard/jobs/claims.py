"""Claiming a row, and writing to it only while the claim holds (the fence).

A claim is one conditional UPDATE: the row moves from waiting to running (or from a silent
or dead worker's running) and gets a new token, the claim's instant. A worker proceeds only
if that UPDATE changed one row, so two deliveries of one message never both run the work.
Every later write filters on the token (`Claim.rows()`): once the sweeper or another worker
has taken the row over, the old worker's writes change nothing.
"""
from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import F, Q, QuerySet
from django.db.models.functions import Coalesce
from django.utils import timezone

from .kinds import JobKind
from .workers import heartbeat, is_gone, worker_id

logger = logging.getLogger(__name__)


def with_last_sign_of_life(kind: JobKind) -> QuerySet:
    """The kind's rows with `last_sign_of_life`: the last heartbeat, or the claim's instant for a
    claim that has not beaten yet (spelled as the submissions' index is)."""
    return kind.model.objects.alias(last_sign_of_life=Coalesce("heartbeat_at", "claimed_at"))


def silent(kind: JobKind, now: datetime) -> Q:
    """Running rows whose worker said nothing for the kind's stale period: gone or frozen."""
    return kind.running & Q(last_sign_of_life__lt=now - timedelta(seconds=kind.stale_after()))


def _abandoned(kind: JobKind, pk: int) -> Q:
    """The row, if a worker process of this host claimed it and no longer exists (a killed pool
    child whose message came back): no reason to wait for its claim to go stale."""
    row = (kind.model.objects.filter(kind.running, pk=pk).exclude(claimed_by="")
           .values("claimed_by", "claimed_at").first())
    if row is None or not is_gone(row["claimed_by"]):
        return Q(pk__in=[])
    logger.info("%s %s: its worker %s is gone; taking it over", kind.name, pk, row["claimed_by"])
    return kind.running & Q(**row)


@dataclass(frozen=True)
class Claim:
    """A worker's hold on one row: its id and the token its claim wrote."""

    kind: JobKind
    pk: int
    token: datetime

    def rows(self) -> QuerySet:
        """The row, only while this claim holds (lock it with `locked()` to store a result)."""
        return self.kind.model.objects.filter(self.kind.running, pk=self.pk, claimed_at=self.token)

    def update(self, **fields) -> bool:
        """Write `fields` if the claim still holds; False: someone else has the row now."""
        return self.rows().update(**fields) == 1

    def beat(self) -> bool:
        return self.update(heartbeat_at=timezone.now())

    def progress(self, done: int, total: int) -> bool:
        """`done` of `total` steps finished: progress for the pages, and a heartbeat."""
        return self.update(heartbeat_at=timezone.now(), **self.kind.progress(done, total))

    def heartbeat(self) -> AbstractContextManager[None]:
        """Beat in a thread while the block runs (see `beating`)."""
        return beating([self])


@contextmanager
def beating(claims: list[Claim]) -> Iterator[None]:
    """Beat for every claim (a batch's, or one) in a thread while the block runs
    (workers.heartbeat), until none holds. Not inside the caller's transaction: nobody else can
    see those claims, and a beat's UPDATE of the same rows from another connection would wait
    for the transaction (PostgreSQL: the row lock; SQLite: "database is locked"), and the work
    for it in turn."""
    if not claims or transaction.get_connection().in_atomic_block:
        yield
        return
    with heartbeat(lambda: any([claim.beat() for claim in claims])):
        _pause_for_tests(claims[0])
        yield


def _pause_for_tests(claim: Claim) -> None:
    """CUPBOARD_JOB_PAUSE (a test hook, see settings): wait after a row's first claim, so an
    end-to-end test can kill the worker mid-work."""
    pause = settings.CUPBOARD_JOB_PAUSE
    if pause and claim.rows().filter(attempts=1).exists():
        time.sleep(pause)


def job_claim(kind: JobKind, pk: int, *, now: datetime | None = None) -> Claim | None:
    """Take row `pk` for this worker: waiting, or running with a silent or dead worker, with
    attempts left. One conditional UPDATE; None when it changed nothing (done, taken by a live
    worker, out of attempts, or gone)."""
    now = now or timezone.now()
    claimable = kind.waiting | silent(kind, now) | _abandoned(kind, pk)
    fields = {"claimed_at": now, "heartbeat_at": now, "claimed_by": worker_id(), "attempts": F("attempts") + 1,
              **kind.take}
    changed = with_last_sign_of_life(kind).filter(claimable, kind.under_limit(), pk=pk).update(**fields)
    return Claim(kind=kind, pk=pk, token=now) if changed == 1 else None
