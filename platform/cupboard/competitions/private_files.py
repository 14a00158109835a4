"""Files in private storage that must not outlive a rolled-back transaction.

Storage writes are not transactional: a run, topics or qrels file is written while its row
is being created, and if anything later in the same transaction fails, the row is rolled
back but the file would stay, named by nothing. Code that stores files inside a
transaction records their names in `removed_on_error()`, placed around that transaction.
"""
from collections.abc import Iterator
from contextlib import contextmanager

from .models import private_storage


@contextmanager
def removed_on_error() -> Iterator[list[str]]:
    """Yields a list; the stored names appended to it are deleted if the block raises."""
    stored: list[str] = []
    try:
        yield stored
    except BaseException:
        for name in stored:
            private_storage().delete(name)
        raise
