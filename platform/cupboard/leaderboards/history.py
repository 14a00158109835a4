"""Leaderboard history: every change of a phase's ranked rows, kept compactly, and the
leaderboard as it stood at any past instant.

Both writers (`leaderboard_refresh` rebuilding a phase, `leaderboard_update` after one
scoring: leaderboards/services.py) read the phase's rows before they write (`rows_state`)
and, after, call `history_record`: one `LeaderboardHistory` row per row that changed (its
counted submission, rank, values or qrels version) and one `removed` row per row that went
away, all stamped with one instant (a change-set). Unchanged rows write nothing, so a
scoring that moves nobody adds one row.

Reading folds a phase's history rows up to an instant into the rows of that instant
(`rows_at`); what anyone sees of them is decided as for the live leaderboard, by their
`Viewer` at that instant (leaderboards/selectors.py): a leaderboard private then, a
surprise column hidden then, stays so in its history.
"""
from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime

from django.utils import timezone

from cupboard.competitions.models import Phase
from cupboard.leaderboards.models import LeaderboardHistory, LeaderboardRow
from cupboard.leaderboards.rows import BoardRow

_FIELDS = ("submission_id", "team_id", "is_baseline", "rank", "primary_value", "values", "averages",
           "qrels_release_number")


def history_key(phase: Phase, *, is_baseline: bool, submission_id: int, team_id: int | None) -> tuple:
    """Whose row a history row is: a baseline's, a team's (the run it counts may change), or on
    a board of every run (`ranking: runs`) the run's own."""
    if is_baseline:
        return ("baseline", submission_id)
    return ("run", submission_id) if phase.ranking == Phase.Ranking.RUNS else ("team", team_id)


def rows_state(phase: Phase) -> dict[tuple, dict]:
    """{key: the row's fields} of the phase's current rows, to compare before and after a write."""
    return {history_key(phase, is_baseline=row["is_baseline"], submission_id=row["submission_id"],
                        team_id=row["team_id"]): row
            for row in LeaderboardRow.objects.filter(phase=phase).values(*_FIELDS)}


def history_record(*, phase: Phase, before: dict[tuple, dict], now: datetime | None = None) -> int:
    """Write the change-set from `before` (`rows_state` ahead of the write) to the phase's
    rows now; returns how many history rows it wrote. Call under the phase lock."""
    now = now or timezone.now()
    after = rows_state(phase)
    changes = [LeaderboardHistory(phase=phase, changed_at=now, **row) for key, row in after.items()
               if before.get(key) != row]
    changes += [LeaderboardHistory(phase=phase, changed_at=now, submission_id=row["submission_id"],
                                   team_id=row["team_id"], is_baseline=row["is_baseline"], removed=True)
                for key, row in before.items() if key not in after]
    LeaderboardHistory.objects.bulk_create(changes)
    return len(changes)


def _as_row(change: LeaderboardHistory) -> BoardRow:
    return BoardRow(submission_id=change.submission_id, team_id=change.team_id,
                    team_name=change.team.name if change.team_id else "", is_baseline=change.is_baseline,
                    method=change.submission.method_name, submitted_at=change.submission.created_at,
                    metadata=change.submission.metadata or {}, values=change.values, averages=change.averages,
                    standings={}, qrels_release_number=change.qrels_release_number, computed_at=change.changed_at)


def _changes(phase: Phase, until: datetime) -> Iterator[LeaderboardHistory]:
    return (phase.leaderboard_history.filter(changed_at__lte=until).select_related("submission", "team")
            .order_by("changed_at", "pk").iterator(chunk_size=2000))


def rows_at(phase: Phase, at: datetime) -> list[BoardRow]:
    """The phase's rows as they stood at `at`: the latest change of each key up to then, found
    from bare ids (no values decoded, no joins: a Cup's long history folds in a fraction of the
    time), then only those rows read in full."""
    latest: dict[tuple, int] = {}
    found = (phase.leaderboard_history.filter(changed_at__lte=at).order_by("changed_at", "pk")
             .values_list("pk", "is_baseline", "submission_id", "team_id"))
    for pk, is_baseline, submission_id, team_id in found.iterator(chunk_size=2000):
        latest[history_key(phase, is_baseline=is_baseline, submission_id=submission_id, team_id=team_id)] = pk
    changes = LeaderboardHistory.objects.filter(pk__in=latest.values(), removed=False).select_related("submission", "team")
    return [_as_row(change) for change in sorted(changes, key=lambda c: (c.changed_at, c.pk))]


def rows_over_time(phase: Phase, until: datetime) -> Iterator[tuple[datetime, list[BoardRow]]]:
    """(instant, rows then) after each change-set up to `until`, oldest first."""
    latest: dict[tuple, LeaderboardHistory] = {}
    instant = None
    for change in _changes(phase, until):
        if instant is not None and change.changed_at != instant:
            yield instant, [_as_row(c) for c in latest.values() if not c.removed]
        instant = change.changed_at
        latest[history_key(phase, is_baseline=change.is_baseline, submission_id=change.submission_id,
                           team_id=change.team_id)] = change
    if instant is not None:
        yield instant, [_as_row(c) for c in latest.values() if not c.removed]
