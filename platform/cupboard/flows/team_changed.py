"""A team changes (teams/services.py): the submissions its people made count wherever they go.

Joining: refused when what the newcomer used in earlier teams takes the team past a limit.
Merging: refused when the merged usage passes a limit; else the source team's submissions move
to the target, and the leaderboards of their phases are rebuilt once the merge is committed.
Leaving: the member's submissions with the team are named in the audit log (they keep counting).
"""
from cupboard import events
from cupboard.leaderboards.services import leaderboard_refresh
from cupboard.submissions.events import RunsMoved
from cupboard.submissions.quota import quota_carried, quota_refuse_overrun
from cupboard.submissions.services import submissions_move
from cupboard.teams.events import TeamJoining, TeamMerging, UsageCarried


def _refuse_join_overrun(event: TeamJoining) -> None:
    quota_refuse_overrun(team=event.team, now=event.now, joining=(event.user,))


def _refuse_merge_overrun(event: TeamMerging) -> None:
    quota_refuse_overrun(team=event.target, now=event.now, merging=event.source)


def _submissions_move(event: TeamMerging) -> None:
    submissions_move(source=event.source, target=event.target)  # sends RunsMoved


def leaderboards_refresh(event: RunsMoved) -> None:
    for phase in event.phases:
        leaderboard_refresh(phase=phase)


def _usage_carried(question: UsageCarried) -> dict[str, int]:
    return quota_carried(team=question.team, user=question.user)


def connect() -> None:
    events.handle(TeamJoining, _refuse_join_overrun)
    events.handle(TeamMerging, _refuse_merge_overrun, _submissions_move)
    # Only the phases the moved submissions are in: rebuilt after the merge commits (a follow-up).
    events.handle(RunsMoved, events.after_commit(leaderboards_refresh, "the leaderboards of the moved runs"))
    events.answer(UsageCarried, _usage_carried)
