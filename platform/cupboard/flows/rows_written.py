"""Rows written in bulk (cupboard/bulk_writes.py): the kept pages of their competitions changed,
as a save of each would have said through its signal, the users of memberships changed (moved
by a team merge: accounts/signed_in.py; a membership's save says so too, teams/apps.py), the teams whose runs they are (submissions/kept_pages.py),
and the boards naming the teams they renamed (leaderboards/services.py)."""
from cupboard import events
from cupboard.accounts.signed_in import people_written
from cupboard.bulk_writes import RowsWritten
from cupboard.competitions.page_cache import rows_written
from cupboard.leaderboards.services import teams_written
from cupboard.submissions.kept_pages import runs_written
from cupboard.teams.models import Membership


def memberships_written(event: RowsWritten) -> None:
    """Only a membership says who a person is among the rows naming a user (a run's submitter,
    an audit event's actor do not): the others' writes cost no query and forget no one."""
    if event.model is Membership:
        people_written(event)


def connect() -> None:
    events.handle(RowsWritten, rows_written, memberships_written, runs_written, teams_written)
