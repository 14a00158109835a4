"""Rows written in bulk (cupboard/bulk_writes.py): the kept pages of their competitions changed,
as a save of each would have said through its signal, and the users they name changed (a
membership moved: accounts/signed_in.py)."""
from cupboard import events
from cupboard.accounts.signed_in import people_written
from cupboard.bulk_writes import RowsWritten
from cupboard.competitions.page_cache import rows_written


def connect() -> None:
    events.handle(RowsWritten, rows_written, people_written)
