"""Bulk writes that say what they wrote: a queryset's `update()`, `bulk_update()` (which runs
`update()`) and `bulk_create()` send no signal, so what a save tells through post_save (a
competition's kept pages changed: competitions/page_cache.py) they tell through `RowsWritten`,
a typed event (cupboard/events.py): sent once written, in the writer's transaction, and an
error when nothing handles it rather than a change nobody hears of. A queryset's `delete()`
needs none of this: it sends post_delete for every row while anyone listens.

A model whose rows some page shows takes `TellingQuerySet` as its manager
(tests/competitions/test_page_cache_writes.py fails for one that does not). `QUIET_FIELDS`,
on the model, names the columns whose bulk update no page kept for everyone is told of: a
job's bookkeeping, written by every claim and beat, and the columns a page's key reads already
(a phase's schedule, its leaderboard version). Such an update costs nothing more; any other
costs one query for the ids of the rows it writes, read before it writes exactly those.
`TOLD_WITH`, on the model, names columns read in that same query, as they were before the
write, for a handler that needs them (a submission's team: its runs token,
submissions/kept_pages.py; a membership's user: who they are, flows/rows_written.py); a model
that has it tells every update, quiet ones too (`RowsWritten.quiet`), for the price of that one
query.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from django.db import models, transaction

from cupboard import events
from cupboard.events import Event

_BATCH = 500  # ids a statement: an update of every row of a big table stays under SQLite's limit


@dataclass(frozen=True)
class RowsWritten(Event):
    """Rows of `model` written in bulk: `rows`, their ids, or the instances a bulk_create stored
    (whose ids a backend may not return); `fields`, the columns an update wrote, None for new rows.
    An update's `before`: each row as read before it wrote them, (id, *model.TOLD_WITH); its
    `values`, what it wrote (an expression where it wrote one)."""

    model: type[models.Model]
    rows: tuple
    fields: frozenset[str] | None
    before: tuple[tuple, ...] = ()
    values: Mapping[str, object] = field(default_factory=dict)

    def told(self, column: str) -> set:
        """The values of `column`, a foreign key's column that the model names in TOLD_WITH
        (`team_id`), over the rows written: new rows' own; an update's as read before it, and
        the one it wrote there, if it wrote one (an id or an instance)."""
        if self.fields is None:
            return {getattr(row, column) for row in self.rows}
        at = 1 + self.model.TOLD_WITH.index(column)
        values = {row[at] for row in self.before}
        for name in (column, column.removesuffix("_id")):
            if name in self.values:
                values.add(getattr(self.values[name], "pk", self.values[name]))
        return values

    @property
    def quiet(self) -> bool:
        """An update of the model's QUIET_FIELDS alone: no page kept for everyone shows them."""
        return self.fields is not None and self.fields <= set(getattr(self.model, "QUIET_FIELDS", ()))


class TellingQuerySet(models.QuerySet):
    def update(self, **fields: object) -> int:
        """Writes exactly the rows it read and tells of (`RowsWritten`), those of them that still
        match: a row another writer makes match between the read and the write is left out
        (written, it would be told to no one), and one moved out of the query is left too (a
        claim stays conditional), so no row lock is needed, on PostgreSQL or SQLite. The read,
        the write and what its handlers write land in one transaction (the caller's, if any)."""
        told_with = getattr(self.model, "TOLD_WITH", None)
        if told_with is None and set(fields) <= set(getattr(self.model, "QUIET_FIELDS", ())):
            return super().update(**fields)
        with transaction.atomic(using=self.db, savepoint=False):
            before = tuple(self.order_by().values_list("pk", *(told_with or ())))
            pks = [row[0] for row in before]
            count = sum(super(TellingQuerySet, self.filter(pk__in=pks[start:start + _BATCH])).update(**fields)
                        for start in range(0, len(pks), _BATCH))
            if before:
                events.send(RowsWritten(model=self.model, rows=tuple(pks), fields=frozenset(fields),
                                        before=before, values=fields))
        return count

    def bulk_create(self, objs: Iterable[models.Model], *args, **kwargs) -> list:
        with transaction.atomic(using=self.db, savepoint=False):
            created = super().bulk_create(objs, *args, **kwargs)
            if created:
                events.send(RowsWritten(model=self.model, rows=tuple(created), fields=None))
        return created
