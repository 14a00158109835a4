"""A phase's schedule or a group's reveal changed, or a release nobody saw was removed
(competitions/schedule.py): the leaderboards concerned are rebuilt, in the organizer's
transaction, since what their ranks count (or the judgments under them) changed."""
from cupboard import events
from cupboard.competitions.events import GroupRevealChanged, PhaseScheduleChanged, QrelsReleaseRemoved
from cupboard.leaderboards.services import leaderboard_refresh


def _refresh_phase(event: PhaseScheduleChanged | QrelsReleaseRemoved) -> None:
    leaderboard_refresh(phase=event.phase)


def _refresh_competition(event: GroupRevealChanged) -> None:
    for phase in event.group.competition.phases.all():
        leaderboard_refresh(phase=phase)


def connect() -> None:
    events.handle(PhaseScheduleChanged, _refresh_phase)
    events.handle(GroupRevealChanged, _refresh_competition)
    events.handle(QrelsReleaseRemoved, _refresh_phase)
