"""Files in private storage that must not outlive a rolled-back transaction, nor be lost by a committed one.

Storage writes are not transactional: a run, topics or qrels file is written while its row
is being created, and if anything later in the same transaction fails, the row is rolled
back but the file would stay, named by nothing. Code that stores files inside a
transaction records their names in `removed_on_error()`, placed around that transaction.

Once that transaction has committed the files belong to rows that exist, so they are kept
whatever is raised afterwards: an on-commit hook that fails (a broker that is down when the
scoring message is sent) must never delete the run files of a submission that was accepted.
"""
from collections.abc import Iterator
from contextlib import contextmanager

from django.db import transaction

from .models import private_storage


class StoredNames(list):
    """Names of files written inside a transaction (`transaction.atomic()`); kept once it commits."""

    committed = False

    def append(self, name: str) -> None:
        if not self:
            # Registered before any hook of the same transaction that runs later (hooks run in order).
            transaction.on_commit(self._mark_committed)
        super().append(name)

    def _mark_committed(self) -> None:
        self.committed = True


@contextmanager
def removed_on_error() -> Iterator[StoredNames]:
    """Yields a list; the stored names appended to it are deleted if the block raises before
    the transaction that stored them committed."""
    stored = StoredNames()
    try:
        yield stored
    except BaseException:
        if not stored.committed:
            for name in stored:
                private_storage().delete(name)
        raise
