"""What a leaderboard page reads of its rows: `BoardRow`, one per ranked line, live or as
the history kept it.

A 500-row board is read on every uncached render. Model instances of the rows with their
submissions and teams cost about twice the plain columns (every instance built, a
submission's timestamps parsed), so the live board reads one `values_list` of just these
columns (`live_rows`), its JSON decoded with orjson; the history folds its changes into
the same shape.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import orjson
from django.db.models import TextField
from django.db.models.functions import Cast
from django.urls import reverse

from cupboard.competitions.models import Phase


@dataclass(frozen=True, slots=True)
class BoardRow:
    submission_id: int
    team_id: int | None
    team_name: str  # "" for baselines
    is_baseline: bool
    method: str
    submitted_at: datetime
    metadata: dict  # the submission's run metadata
    values: dict  # {subset code: {metric: value}}, unrounded
    averages: dict  # {group name or "all": {metric: value or None}}
    standings: dict  # rank bands by column key (LeaderboardRow.standings); empty in history
    qrels_release_number: int | None
    computed_at: datetime

    @property
    def submission_url(self) -> str:
        return reverse("submissions:detail", args=[self.submission_id])


_COLUMNS = ("submission_id", "team_id", "team__name", "is_baseline", "submission__method_name",
            "submission__created_at", "qrels_release_number", "computed_at")
# JSON columns read as text and decoded with orjson: a 500-row board holds 2,000 documents (36
# floats each in `values`), and orjson decodes them in a fifth of json's time (docs/benchmarks.md).
_JSON = {"values_json": "values", "averages_json": "averages", "standings_json": "standings",
         "metadata_json": "submission__metadata"}


def _decoded(text: str | None) -> dict:
    return orjson.loads(text) if text else {}


def live_rows(phase: Phase, *, baselines_only: bool = False) -> list[BoardRow]:
    """The phase's current rows (with `baselines_only`, its baselines'), in one query of the
    columns above, in no particular order (the board orders them by what its viewer sees)."""
    texts = {alias: Cast(column, TextField()) for alias, column in _JSON.items()}
    rows = phase.leaderboard_rows.filter(is_baseline=True) if baselines_only else phase.leaderboard_rows
    found = rows.order_by().annotate(**texts).values_list(*_COLUMNS, *texts)
    return [BoardRow(submission_id=s, team_id=t, team_name=name or "", is_baseline=b, method=method, submitted_at=at,
                     qrels_release_number=qrels, computed_at=computed, values=_decoded(values),
                     averages=_decoded(averages), standings=_decoded(standings), metadata=_decoded(meta))
            for s, t, name, b, method, at, qrels, computed, values, averages, standings, meta in found]
