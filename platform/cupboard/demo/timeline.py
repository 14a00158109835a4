"""The demo's runs spread over the days their phase has been open.

`demo_load` scores every run within seconds, so each leaderboard's history (and each
run's submission time) would fit in one minute of the load. To give the history chart and
the leaderboard "as of" a past day something to show, the load's instants of one phase
(submissions' times and its history's change-sets, all written during the load) are mapped,
in order, onto the time from the phase's opening (at most three weeks back) to a few minutes
ago. The order of everything is kept, so ranks, ties and "last submission" are unchanged.
"""
from __future__ import annotations

from datetime import datetime, timedelta

from cupboard.competitions.models import Phase
from cupboard.leaderboards.models import LeaderboardHistory
from cupboard.submissions.models import Submission

SPAN = timedelta(days=21)


def phase_timeline_spread(*, phase: Phase, since: datetime, now: datetime) -> None:
    """Map the instants in [since, now] of `phase`'s submissions and history onto its open time."""
    start = max(phase.opens_at, now - SPAN) + timedelta(hours=1)
    end = now - timedelta(minutes=5)
    if end <= start or now <= since:
        return

    def moved(instant: datetime | None) -> datetime | None:
        if instant is None or instant < since:
            return instant
        return start + (end - start) * ((instant - since) / (now - since))

    submissions = list(Submission.objects.filter(phase=phase, created_at__gte=since))
    for submission in submissions:
        submission.created_at, submission.scored_at = moved(submission.created_at), moved(submission.scored_at)
    Submission.objects.bulk_update(submissions, ["created_at", "scored_at"])
    changes = list(LeaderboardHistory.objects.filter(phase=phase, changed_at__gte=since))
    for change in changes:
        change.changed_at = moved(change.changed_at)
    LeaderboardHistory.objects.bulk_update(changes, ["changed_at"])
