"""A phase's schedule or a group's reveal changed, or a release nobody saw was removed
(competitions/schedule.py): the leaderboards concerned are rebuilt, in the organizer's
transaction, since what their ranks count (or the judgments under them) changed."""
from cupboard import events
from cupboard.leaderboards.services import leaderboard_refresh


def _refresh_phase(*, phase) -> None:
    leaderboard_refresh(phase=phase)


def _refresh_competition(*, group) -> None:
    for phase in group.competition.phases.all():
        leaderboard_refresh(phase=phase)


def connect() -> None:
    events.phase_schedule_changed.handled_by(_refresh_phase)
    events.group_reveal_changed.handled_by(_refresh_competition)
    events.qrels_release_removed.handled_by(_refresh_phase)
