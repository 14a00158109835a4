"""Rows written in bulk (cupboard/bulk_writes.py): the kept pages of their competitions changed,
as a save of each would have said through its signal, the users they name changed (a
membership moved: accounts/signed_in.py), the teams whose runs they are (submissions/kept_pages.py),
and the boards naming the teams they renamed (leaderboards/services.py)."""
from cupboard import events
from cupboard.accounts.signed_in import people_written
from cupboard.bulk_writes import RowsWritten
from cupboard.competitions.page_cache import rows_written
from cupboard.leaderboards.services import teams_written
from cupboard.submissions.kept_pages import runs_written


def connect() -> None:
    events.handle(RowsWritten, rows_written, people_written, runs_written, teams_written)
