"""The operations desk of a competition: what its organizers look at during a deadline rush.

Per phase: runs in line for a worker and waiting for judgments, being scored, the longest
wait, runs scored and failed in the last hour and the median scoring time; for the site (the
workers are shared by every competition): the workers seen lately and the whole queue's
length, as numbers only (no other competition's name); and the last hour's problems of this
competition (failed runs with their reason, mails failing). Everything is read from the
database when asked, so any web process shows the same.
"""
from __future__ import annotations

import statistics
from collections import Counter
from dataclasses import asdict, dataclass
from datetime import datetime, timedelta

from django.db.models import DurationField, ExpressionWrapper, F

from cupboard.competitions.models import Competition
from cupboard.notifications.models import Notification
from cupboard.submissions.models import Submission
from cupboard.submissions.queue import in_line, live_workers

HOUR = timedelta(hours=1)
BUCKET = timedelta(minutes=5)  # the throughput chart's bars


@dataclass(frozen=True)
class PhaseLoad:
    slug: str
    name: str
    in_line: int
    waiting_for_judgments: int
    scoring: int
    oldest_wait_seconds: float | None
    scored_last_hour: int
    failed_last_hour: int
    median_scoring_seconds: float | None


def _phase_load(phase, now: datetime) -> PhaseLoad:
    runs = Submission.objects.filter(phase=phase)
    line = in_line().filter(phase=phase)
    oldest = line.order_by("waiting_since").values_list("waiting_since", flat=True).first()
    took = ExpressionWrapper(F("scored_at") - F("claimed_at"), output_field=DurationField())
    recent = runs.filter(status=Submission.Status.SCORED, scored_at__gte=now - HOUR, claimed_at__isnull=False)
    durations = [d.total_seconds() for d in recent.annotate(took=took).values_list("took", flat=True)]
    return PhaseLoad(
        slug=phase.slug, name=phase.name, in_line=line.count(),
        waiting_for_judgments=runs.filter(status=Submission.Status.QUEUED,
                                          status_reason=Submission.WAITING_FOR_JUDGMENTS).count(),
        scoring=runs.filter(status=Submission.Status.SCORING).count(),
        oldest_wait_seconds=None if oldest is None else round((now - oldest).total_seconds(), 1),
        scored_last_hour=len(durations),
        failed_last_hour=runs.filter(status=Submission.Status.FAILED, claimed_at__gte=now - HOUR).count(),
        median_scoring_seconds=round(statistics.median(durations), 2) if durations else None)


def _failures(competition: Competition, now: datetime) -> list[dict]:
    failed = (Submission.objects.filter(phase__competition=competition, status=Submission.Status.FAILED,
                                        claimed_at__gte=now - HOUR)
              .select_related("team", "phase").order_by("-claimed_at")[:20])
    return [{"submission": str(s), "phase": s.phase.name, "at": s.claimed_at.isoformat(),
             "reason": s.status_reason[:300], "url": s.get_absolute_url()} for s in failed]


def throughput(competition: Competition, now: datetime) -> dict[str, list[int]]:
    """Runs scored per BUCKET over the last hour, per phase name (oldest bucket first)."""
    buckets = int(HOUR / BUCKET)
    start = now - HOUR
    scored = Submission.objects.filter(phase__competition=competition, status=Submission.Status.SCORED,
                                       scored_at__gte=start).values_list("phase__name", "scored_at")
    counts = Counter((name, min(buckets - 1, int((at - start) / BUCKET))) for name, at in scored)
    names = sorted({name for name, _ in counts})
    return {name: [counts[name, i] for i in range(buckets)] for name in names}


def competition_desk(competition: Competition, now: datetime) -> dict:
    """Everything the desk shows, as plain data (the page and its JSON)."""
    phases = [_phase_load(phase, now) for phase in competition.phases.order_by("opens_at", "pk")]
    mails = Notification.objects.filter(competition=competition, sent_at__isnull=True, skipped="")
    return {
        "at": now.isoformat(),
        "site": {"workers_live": live_workers(now), "in_line": in_line().count(),
                 "scoring": Submission.objects.filter(status=Submission.Status.SCORING).count()},
        "phases": [asdict(p) for p in phases],
        "failed_last_hour": _failures(competition, now),
        "mails": {"waiting": mails.filter(last_error="").count(), "failing": mails.exclude(last_error="").count()},
    }
