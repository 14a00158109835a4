"""A kind of job, declared once beside its work function.

    POOL_EXPORT = JobKind(
        name="pool export", model=PoolExport, task="cupboard.judging.tasks.build_pool_export",
        waiting=Q(status="queued"), running=Q(status="building"),
        take={"status": "building", "progress": 0}, put_back={"status": "queued", "progress": 0})

The engine reads and writes the columns every job row has from the abstract `JobRow`
(jobs/models.py) and its `created_at`: a kind declares behaviour, not column names. The states
are whatever the model uses: `waiting` and `running` select them, `take` and `put_back` write them.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.db import models
from django.db.models import Q


def percent(column: str = "progress", *, of: int = 90) -> Callable[[int, int], dict]:
    """Progress written as a percentage in `column`, up to `of` (the rest is storing the result)."""
    return lambda done, total: {column: int(of * done / max(total, 1))}


def _stale_after() -> float:
    return settings.CUPBOARD_STALE_AFTER


def _resend_after() -> float:
    return settings.CUPBOARD_RESEND_AFTER


def _max_attempts() -> int:
    return settings.CUPBOARD_MAX_ATTEMPTS


@dataclass(frozen=True)
class JobKind:
    name: str  # for logs: "scoring", "pool export"
    model: type[models.Model]
    task: str  # the Celery task's dotted path; its message carries an id (a list of ids when `batch`)
    waiting: Q  # rows waiting for a worker
    running: Q  # rows a worker holds
    take: dict[str, Any]  # what a claim writes besides the engine's columns (waiting -> running)
    put_back: dict[str, Any]  # what the sweeper writes to queue silent work again (running -> waiting)
    progress: Callable[[int, int], dict] = field(default_factory=percent)
    stale_after: Callable[[], float] = _stale_after  # seconds of silence before a claim is taken over
    resend_after: Callable[[], float] = _resend_after  # seconds before a waiting row's message is sent again
    max_attempts: Callable[[], int] | None = _max_attempts  # claims allowed, or None: unlimited
    # Out of attempts: the writes that end the row (given its values), then what to tell (a mail).
    # None: the row is left as it is and no longer claimed or sent.
    give_up: Callable[[dict], dict] | None = None
    gave_up: Callable[[int], None] | None = None
    batch: bool = False  # one message carries the ids of a batch
    sweep_limit: int = 100  # rows sent again or put back per sweep, oldest first: a bounded resend rate

    def under_limit(self) -> Q:
        """Rows with claims left."""
        if self.max_attempts is None:
            return Q()
        return Q(attempts__lt=self.max_attempts())
