"""The demo's runs spread over the days their phase has been open, and what came before them
dated before them.

`demo_load` scores every run within seconds, so each leaderboard's history (and each
run's submission time) would fit in one minute of the load. To give the history chart and
the leaderboard "as of" a past day something to show, the load's instants of one phase
(submissions' times and its history's change-sets, all written during the load) are mapped,
in order, onto the time from the phase's opening (at most three weeks back) to a few minutes
ago. The order of everything is kept, so ranks, ties and "last submission" are unchanged.

What an organizer and the teams did before any run (teams formed, a phase's topics and first
judgments uploaded, their SHA-256 committed) is dated then too: stamped at the load, the Cup's
teams were formed after its entry deadline and Test B's commitment came after Test B's runs.
"""
from __future__ import annotations

from datetime import datetime, timedelta

from cupboard.audit.models import AuditEvent
from cupboard.competitions.models import Phase, QrelsRelease, TopicSet
from cupboard.leaderboards.models import LeaderboardHistory
from cupboard.submissions.models import Submission
from cupboard.teams.models import Membership, Team

SPAN = timedelta(days=21)
# An organizer puts a phase's topics and judgments up this long before it opens.
AHEAD = timedelta(hours=1)
_SETUP = (AuditEvent.Action.TOPICS_UPLOADED, AuditEvent.Action.QRELS_UPLOADED, AuditEvent.Action.QRELS_COMMITTED)


def team_formed_backdate(*, team: Team, at: datetime) -> None:
    """The team, its memberships and their audit events dated `at` (before the entry deadline)."""
    Team.objects.filter(pk=team.pk).update(created_at=at)
    Membership.objects.filter(team=team).update(joined_at=at)
    AuditEvent.objects.filter(competition=team.competition, action__in=AuditEvent.TEAM_ACTIONS,
                              details__team=team.pk).update(created_at=at)


def phase_setup_backdate(*, phase: Phase, since: datetime, now: datetime) -> None:
    """`phase`'s topics, judgments and their events written since `since` dated AHEAD of its
    opening (a commitment no earlier than the competition's start, when they are published);
    left as they are for a phase that opens later than that from now."""
    at = phase.opens_at - AHEAD
    if at >= now:
        return
    TopicSet.objects.filter(phase=phase, created_at__gte=since).update(created_at=at)
    QrelsRelease.objects.filter(phase=phase, created_at__gte=since).update(created_at=at)
    events = AuditEvent.objects.filter(competition=phase.competition, action__in=_SETUP, details__phase=phase.slug,
                                       created_at__gte=since)
    events.exclude(action=AuditEvent.Action.QRELS_COMMITTED).update(created_at=at)
    events.filter(action=AuditEvent.Action.QRELS_COMMITTED).update(created_at=max(at, phase.competition.starts_at))


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
