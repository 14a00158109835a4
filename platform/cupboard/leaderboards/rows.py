"""What a leaderboard page reads of its rows: `BoardRow`, one per ranked line, live or as
the history kept it.

A 500-row board is read on every uncached render. Model instances of the rows with their
submissions and teams cost about twice the plain columns (every instance built, a
submission's timestamps parsed), so the live board reads one `values_list` of just these
columns (`live_rows`); the history folds its changes into the same shape.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

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


_LIVE = ("submission_id", "team_id", "team__name", "is_baseline", "submission__method_name",
         "submission__created_at", "submission__metadata", "values", "averages", "standings",
         "qrels_release_number", "computed_at")


def live_rows(phase: Phase) -> list[BoardRow]:
    """The phase's current rows, in one query of the columns above."""
    return [BoardRow(submission_id=s, team_id=t, team_name=name or "", is_baseline=b, method=method, submitted_at=at,
                     metadata=meta or {}, values=values, averages=averages, standings=standings or {},
                     qrels_release_number=qrels, computed_at=computed)
            for s, t, name, b, method, at, meta, values, averages, standings, qrels, computed
            in phase.leaderboard_rows.values_list(*_LIVE)]
