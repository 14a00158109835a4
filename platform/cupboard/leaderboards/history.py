"""Leaderboard history: every change of a phase's ranked rows, kept compactly, and the
leaderboard as it stood at any past instant.

Both writers (`leaderboard_refresh` rebuilding a phase, `leaderboard_update` after one
scoring: leaderboards/services.py) read the phase's rows before they write (`rows_state`)
and, after, call `history_record`: one `LeaderboardHistory` row per row that changed (its
counted submission, rank, values or qrels version) and one `removed` row per row that went
away, all stamped with one instant (a change-set). Unchanged rows write nothing, so a
scoring that moves nobody adds one row.

Reading folds a phase's history rows up to an instant into the rows of that instant
(`rows_at`), or over the whole history into the points of its charts (`ranked_points`), at a
cost in proportion to the changes, not to change-sets x rows; what anyone sees of them is
decided as for the live leaderboard, by their `Viewer` at that instant
(leaderboards/selectors.py): a leaderboard private then, a surprise column hidden then, stays
so in its history.
"""
from __future__ import annotations

from bisect import bisect_left, bisect_right, insort
from collections.abc import Callable, Hashable, Iterator
from dataclasses import dataclass
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


def _change_sets(phase: Phase, until: datetime) -> Iterator[tuple[datetime, dict[tuple, BoardRow | None]]]:
    """(instant, {key: its row then, None where it went away}) of each change-set up to `until`,
    oldest first: only what changed, each row built once."""
    changes = (phase.leaderboard_history.filter(changed_at__lte=until).select_related("submission", "team")
               .order_by("changed_at", "pk").iterator(chunk_size=2000))
    instant, changed = None, {}
    for change in changes:
        if instant is not None and change.changed_at != instant:
            yield instant, changed
            changed = {}
        instant = change.changed_at
        key = history_key(phase, is_baseline=change.is_baseline, submission_id=change.submission_id,
                          team_id=change.team_id)
        changed[key] = None if change.removed else _as_row(change)
    if instant is not None:
        yield instant, changed


@dataclass(frozen=True, slots=True)
class Seen:
    """What a viewer sees of the ranked rows at one instant: `rules` names everything the
    measure depends on (the columns they see, whether the Avg is over those only), so equal
    rules mean equal measures; `measure(row)` is (its order key, the primary value shown)."""

    rules: Hashable
    measure: Callable[[BoardRow], tuple[tuple, float | None]]


Point = tuple[datetime, str, int, float | None]  # (instant, team, rank, value shown)


def ranked_points(phase: Phase, until: datetime,
                  seen_at: Callable[[datetime], Seen | None]) -> tuple[list[datetime], list[Point]]:
    """(the instants seen with a ranked row, the points) of the phase's history up to `until`, as
    `seen_at(instant)` shows it (None: not seen then). A team gets a point where its value or rank
    as seen changes, and its last one again at the latest instant (at the one before it went
    away) so each step line still reaches its end; repeats are left out. The fold keeps the
    ranked rows in order and, for each change-set, measures only the rows it changed and
    re-ranks only the stretch between their old and new places (all after them when rows came
    or went): a Cup's history is thousands of one-run scorings, and re-ranking the whole board
    after each cost change-sets x teams. Everything is measured again when the rules change (a
    reveal, or seen again after an instant not seen). Baselines hold no rank: they are left out."""
    rows: dict[tuple, BoardRow] = {}  # the ranked rows now
    shown: dict[tuple, tuple[tuple, float | None]] = {}  # key -> its (order key, value) by `rules`
    order: list[tuple[tuple, tuple]] = []  # (order key, key) of `shown`, best first
    last: dict[tuple, Point] = {}  # each present row's latest point
    instants: list[datetime] = []
    points: list[Point] = []
    rules: Hashable = None  # those of the latest instant seen; None after one not seen
    for instant, changed in _change_sets(phase, until):
        changed = {key: row for key, row in changed.items() if key[0] != "baseline"}
        for key, row in changed.items():
            if row is not None:
                rows[key] = row
                continue
            rows.pop(key, None)
            gone = last.pop(key, None)
            if gone is not None and gone[0] < instants[-1]:
                points.append((instants[-1], *gone[1:]))
        seen = seen_at(instant)
        if seen is None:
            rules = None
            continue
        if seen.rules != rules:
            rules = seen.rules
            shown = {key: seen.measure(row) for key, row in rows.items()}
            order = sorted((measured[0], key) for key, measured in shown.items())
            stretch = range(len(order))
        else:
            stretch = _re_rank(changed, rows, shown, order, seen.measure)
        if not order:
            continue
        instants.append(instant)
        for place in stretch:
            key = order[place][1]
            point = (instant, rows[key].team_name, place + 1, shown[key][1])
            if key not in last or last[key][2:] != point[2:]:
                points.append(point)
                last[key] = point
    for point in last.values():
        if point[0] < instants[-1]:
            points.append((instants[-1], *point[1:]))
    points.sort(key=lambda p: (p[0], p[2]))  # instant by instant, in rank order
    return instants, points


def _re_rank(changed: dict[tuple, BoardRow | None], rows: dict[tuple, BoardRow],
             shown: dict[tuple, tuple[tuple, float | None]], order: list[tuple[tuple, tuple]],
             measure: Callable[[BoardRow], tuple[tuple, float | None]]) -> range:
    """Move the `changed` rows to their new places in `order` (measured once each); returns
    the places whose rank may have changed: from the best old or new place among them to the
    worst, or to the end when rows came or went (everyone after moves one)."""
    moved, net = [], 0
    for key in changed:
        before = shown.pop(key, None)
        if before is not None:
            del order[bisect_left(order, (before[0], key))]
            moved.append((before[0], key))
            net -= 1
        if key in rows:
            shown[key] = measure(rows[key])
            insort(order, (shown[key][0], key))
            moved.append((shown[key][0], key))
            net += 1
    if not moved:
        return range(0)
    end = len(order) if net else bisect_right(order, max(moved))
    return range(bisect_left(order, min(moved)), end)
