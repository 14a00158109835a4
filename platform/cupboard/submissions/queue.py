"""Where a submission stands in the scoring queue, and when it will likely be scored.

Every worker takes from one queue, so the line is site-wide: the queued submissions of every
competition that joined it before this one (`waiting_since`, set at upload and re-score; a run
put back after a worker died keeps its place). Those waiting for judgments are not in line.
The sentence says so ("runs across the site"): the count includes competitions the reader
may not know of, and only a count of them, never which.

The estimate is arithmetic on what the database already knows:
- how long a worker spends on a run: the median, over the phase's last `RECENT` scorings (the
  site's when the phase has fewer than `ENOUGH`), of the time from a worker process's claim to
  its next claim when that next run was waiting already - the scoring and all that follows it
  (the board's update, the team's mail, taking the next message), which weighs as much as the
  scoring itself at a worker's own pace; from claim to scored where no worker went straight on;
  none yet, no estimate;
- how many workers score at once: the worker processes holding a scoring claim with a fresh
  heartbeat, or that finished a scoring in the last `SEEN` (a worker process is `host:pid`,
  so each prefork child counts once), but for processes of this host that no longer exist
  (`load_demo` scores the demo's runs in its own process, which then ends: counted, it made
  the demo's first estimates several times too short). None seen: no estimate, and the page
  says no worker has scored lately rather than guess.
Then a queued run waits about (ahead / workers + 1/2) scorings for a free worker (the runs
being scored are half done on average) and one more for its own. A run being scored has
(1 - progress) of a scoring left.
"""
from __future__ import annotations

import statistics
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db.models import F, Q, QuerySet
from django.utils import timezone

from cupboard.jobs.workers import is_gone

from .models import Submission

RECENT = 20  # scorings the median is taken over
ENOUGH = 3  # a phase's own scorings needed before its median is used
SEEN = timedelta(minutes=10)  # a worker process that scored this recently is counted as alive


@dataclass(frozen=True)
class QueuePlace:
    ahead: int | None  # queued runs before it (None: it is not queued)
    workers: int  # worker processes seen scoring lately (live_workers)
    seconds_each: float | None  # median time a worker spends on a run
    estimate_seconds: float | None  # until scored, from now; None: not known

    def estimated_at(self, now: datetime) -> datetime | None:
        return None if self.estimate_seconds is None else now + timedelta(seconds=self.estimate_seconds)

    def as_dict(self, now: datetime) -> dict:
        at = self.estimated_at(now)
        return {"ahead": self.ahead, "position": None if self.ahead is None else self.ahead + 1,
                "workers": self.workers, "seconds_each": self.seconds_each,
                "estimate_seconds": self.estimate_seconds, "estimated_at": at.isoformat() if at else None,
                "text": self.text(now)}

    def text(self, now: datetime) -> str:
        """The sentence the submission page and `evaluator submit --wait` show."""
        if self.ahead is None:
            return "Being scored" + (f"; about {_duration(self.estimate_seconds)} left." if self.estimate_seconds
                                     is not None else ".")
        line = ("Next in line" if self.ahead == 0
                else f"{self.ahead} run{'s'[:self.ahead != 1]} across the site ahead of it in the queue")
        if self.estimate_seconds is not None:
            at = self.estimated_at(now)
            return (f"{line}; likely scored in about {_duration(self.estimate_seconds)} "
                    f"(around {at:%H:%M} UTC), at the pace of the last scorings.")
        if self.seconds_each is None:
            return f"{line}; an estimate follows once a run has been scored."
        return f"{line}; no worker has scored a run in the last {SEEN.seconds // 60} minutes, so no estimate."


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{max(1, round(seconds))} s"
    if seconds < 90 * 60:
        return f"{round(seconds / 60)} min"
    hours, minutes = divmod(round(seconds / 60), 60)
    return f"{hours} h {minutes} min" if minutes else f"{hours} h"


def in_line() -> QuerySet:
    """Queued submissions waiting for a worker (not for judgments)."""
    return Submission.objects.filter(status=Submission.Status.QUEUED).exclude(status_reason=Submission.WAITING_FOR_JUDGMENTS)


def live_workers(now: datetime) -> int:
    """Worker processes scoring now (a fresh heartbeat) or that scored within `SEEN`."""
    fresh = now - timedelta(seconds=settings.CUPBOARD_STALE_AFTER)
    alive = (Q(status=Submission.Status.SCORING, heartbeat_at__gte=fresh)
             | Q(status=Submission.Status.SCORED, scored_at__gte=now - SEEN))
    seen = Submission.objects.filter(alive).exclude(claimed_by="").order_by().values_list("claimed_by", flat=True).distinct()
    return sum(not is_gone(process) for process in seen)


def scoring_seconds(phase_id: int | None = None) -> float | None:
    """Median seconds a worker spends on a run (module docstring), from the recent scorings."""
    done = Submission.objects.filter(status=Submission.Status.SCORED, scored_at__isnull=False,
                                     claimed_at__isnull=False, scored_at__gte=F("claimed_at"))
    for rows in ([done.filter(phase_id=phase_id)] if phase_id else []) + [done]:
        recent = list(rows.order_by("-scored_at").values_list(
            "claimed_by", "claimed_at", "scored_at", "waiting_since", "created_at")[:RECENT])
        if len(recent) >= (ENOUGH if rows is not done else 1):
            return statistics.median(_run_seconds(recent))
    return None


def _run_seconds(recent: list[tuple]) -> list[float]:
    """From one claim of a worker process to its next, where that next run was already waiting
    when the first was scored: the whole cost of a run (the scoring, its follow-ups, taking the
    next message), which is what the line moves at. Where no worker went straight on (the
    runs came one by one), from claim to scored."""
    gaps: list[float] = []
    last: dict[str, tuple] = {}
    for worker, claimed, scored, waiting, created in sorted(recent, key=lambda row: row[1]):
        before = last.get(worker)
        if worker and before and (waiting or created) <= before[1]:
            gaps.append((claimed - before[0]).total_seconds())
        last[worker] = claimed, scored
    return gaps or [(scored - claimed).total_seconds() for _, claimed, scored, _, _ in recent]


def _ahead(submission: Submission) -> int:
    since = submission.waiting_since or submission.created_at
    earlier = Q(waiting_since__lt=since) | Q(waiting_since=since, pk__lt=submission.pk)
    return in_line().filter(earlier).count()


def queue_place(submission: Submission, *, now: datetime | None = None) -> QueuePlace | None:
    """Its place and estimate while pending; None once done or while it waits for judgments."""
    if not submission.is_pending or submission.status_reason == Submission.WAITING_FOR_JUDGMENTS:
        return None
    now = now or timezone.now()
    workers, each = live_workers(now), scoring_seconds(submission.phase_id)
    if submission.status == Submission.Status.SCORING:
        left = None if each is None else round(each * (1 - submission.progress / 100), 1)
        return QueuePlace(ahead=None, workers=workers, seconds_each=each, estimate_seconds=left)
    ahead = _ahead(submission)
    estimate = None if each is None or workers == 0 else round((ahead / workers + 0.5) * each + each, 1)
    return QueuePlace(ahead=ahead, workers=workers, seconds_each=each, estimate_seconds=estimate)
