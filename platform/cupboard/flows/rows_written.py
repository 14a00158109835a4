"""Rows written in bulk (cupboard/bulk_writes.py): the kept pages of their competitions changed,
as a save of each would have said through its signal."""
from cupboard import events
from cupboard.bulk_writes import RowsWritten
from cupboard.competitions.page_cache import rows_written


def connect() -> None:
    events.handle(RowsWritten, rows_written)
