"""A team changes (teams/services.py): the submissions its people made count wherever they go.

Joining: refused when what the newcomer used in earlier teams takes the team past a limit.
Merging: refused when the merged usage passes a limit; else the source team's submissions move
to the target, and the leaderboards of their phases are rebuilt once the merge is committed.
Leaving: the member's submissions with the team are named in the audit log (they keep counting).
"""
from cupboard import events
from cupboard.leaderboards.services import leaderboard_refresh
from cupboard.submissions.quota import quota_carried, quota_refuse_overrun
from cupboard.submissions.services import submissions_move


def _refuse_join_overrun(*, team, user, now) -> None:
    quota_refuse_overrun(team=team, now=now, joining=(user,))


def _refuse_merge_overrun(*, source, target, now) -> None:
    quota_refuse_overrun(team=target, now=now, merging=source)


def leaderboards_refresh(*, phases) -> None:
    for phase in phases:
        leaderboard_refresh(phase=phase)


def _submissions_move(*, source, target, now) -> None:
    phases = submissions_move(source=source, target=target)
    # Only the phases the moved submissions are in, known here: rebuilt after the merge commits (a follow-up).
    events.follow_up(events.team_merging, leaderboards_refresh, "the leaderboards of the moved runs",
                     phases=sorted(phases, key=lambda phase: phase.pk))


def connect() -> None:
    events.team_joining.handled_by(_refuse_join_overrun)
    events.team_merging.handled_by(_refuse_merge_overrun, _submissions_move)
    events.usage_carried.answered_by(quota_carried)
