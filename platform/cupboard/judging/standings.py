"""What a new qrels version changed: each team's score and rank before and after, per
subset and on the average, and per subset its judgments: new, flipped (old label -> new
label, counted by kind) and dropped.

The leaderboard keeps only the current rows and a re-scoring replaces a submission's
scores, so the "before" is kept when it is about to be lost: `release_standings_record`
copies the phase's rows (primary metric only) in the transaction that creates the release,
before its re-scoring starts. The "after" of release N is the copy the next release made, or
while N is current, the rows as they are now (with how many submissions still wait to be
scored with it).
"""
from __future__ import annotations

import io
from dataclasses import dataclass

from cupboard.competitions.models import Phase, QrelsFile, QrelsRelease
from cupboard.competitions.selectors import ALL
from cupboard.submissions.models import Submission

from .models import ReleaseStandings


def standing_rows(phase: Phase) -> list[dict]:
    """The phase's leaderboard rows now, on the primary metric, as `ReleaseStandings.rows`
    keeps them: owner key ("team-<id>" or "baseline-<submission id>"), name, rank, the value
    per subset and the average ("all")."""
    metric, runs = phase.competition.primary_metric, phase.ranking == Phase.Ranking.RUNS
    rows = []
    for row in phase.leaderboard_rows.select_related("submission", "team").order_by("is_baseline", "rank"):
        values = {code: by_metric.get(metric) for code, by_metric in row.values.items()}
        values[ALL] = row.averages.get(ALL, {}).get(metric)
        # on a board of every run (`ranking: runs`) a team has a row per run: each run is its own owner
        owner = f"run-{row.submission_id}" if runs else f"team-{row.team_id}"
        rows.append({"key": owner if row.team_id else f"baseline-{row.submission_id}",
                     "name": (f"{row.team.name}: {row.submission.method_name}" if runs else row.team.name)
                     if row.team_id else f"Baseline: {row.submission.method_name}",
                     "is_baseline": row.is_baseline, "rank": row.rank, "submission_id": row.submission_id,
                     "qrels": row.qrels_release_number, "values": values})
    return rows


def _labels(qrels) -> dict[tuple[str, str], int]:
    return {(qid, docid): label for qid, docs in qrels.judgments.items() for docid, label in docs.items()}


def judgment_changes(before: dict[tuple[str, str], int], after: dict[tuple[str, str], int]) -> dict:
    """How one subset's judgments moved, {(qid, docid): label} before and after: pairs newly
    judged, pairs whose label changed counted by kind ("0->1": n, sorted), pairs no longer
    judged. A re-assessment that flips labels or drops a pool moves scores as much as new
    judgments do, so all three are shown (issue 23: 473 flipped and 101 dropped on CIRAL)."""
    flipped: dict[str, int] = {}
    for pair in before.keys() & after.keys():
        if before[pair] != after[pair]:
            kind = f"{before[pair]}->{after[pair]}"
            flipped[kind] = flipped.get(kind, 0) + 1
    return {"new": len(after.keys() - before.keys()), "flipped": dict(sorted(flipped.items())),
            "dropped": len(before.keys() - after.keys())}


def release_standings_record(*, phase: Phase, release: QrelsRelease, uploaded: list[str],
                             previous: QrelsRelease) -> ReleaseStandings:
    """Keep the rows `release` is about to change, and per subset of its new files (`uploaded`,
    subset codes) how they differ from the previous release's file of that subset (new,
    flipped and dropped judgments). Inside the release's transaction; both sides are read from
    the stored files, as they are kept."""
    after = {f.subset.code: f for f in release.files.select_related("subset")}
    before = {f.subset.code: f for f in previous.files.select_related("subset")}
    moved = {}
    for code in uploaded:
        old = before.get(code)
        moved[code] = judgment_changes(_stored_labels(old) if old is not None else {}, _stored_labels(after[code]))
    return ReleaseStandings.objects.create(release=release, rows=standing_rows(phase), judgment_changes=moved,
                                          new_judgments={code: counts["new"] for code, counts in moved.items()})


def _stored_labels(qrels_file: QrelsFile) -> dict[tuple[str, str], int]:
    from evaluator.io.qrels import read_qrels

    with qrels_file.file.open("rb") as stored:
        return _labels(read_qrels(io.BytesIO(stored.read()), name=qrels_file.original_name))


@dataclass(frozen=True)
class Change:
    """One team (or baseline) on one column: before and after."""

    name: str
    is_baseline: bool
    before: float | None
    after: float | None
    rank_before: int | None
    rank_after: int | None

    @property
    def delta(self) -> float | None:
        return None if self.before is None or self.after is None else self.after - self.before

    @property
    def moved(self) -> int | None:
        """Places gained (positive) or lost."""
        if self.rank_before is None or self.rank_after is None:
            return None
        return self.rank_before - self.rank_after


def _ranks(rows: list[dict], column: str) -> dict[str, int]:
    """Competition ranks (1, 2, 2, 4) of the team rows by their value in `column`; the
    average keeps the leaderboard's own ranks (ties there are broken by submission time)."""
    teams = [r for r in rows if not r["is_baseline"]]
    if column == ALL:
        return {r["key"]: r["rank"] for r in teams}
    scored = sorted((r["values"].get(column) for r in teams if r["values"].get(column) is not None), reverse=True)
    return {r["key"]: scored.index(r["values"][column]) + 1 for r in teams if r["values"].get(column) is not None}


def changes(before: list[dict], after: list[dict], column: str) -> list[Change]:
    """Each owner in either list, ordered by its rank after (baselines last)."""
    old, new = {r["key"]: r for r in before}, {r["key"]: r for r in after}
    old_ranks, new_ranks = _ranks(before, column), _ranks(after, column)
    result = []
    for key in dict.fromkeys([*new, *old]):
        row = new.get(key) or old[key]
        result.append(Change(name=row["name"], is_baseline=row["is_baseline"],
                             before=old.get(key, {}).get("values", {}).get(column),
                             after=new.get(key, {}).get("values", {}).get(column),
                             rank_before=old_ranks.get(key), rank_after=new_ranks.get(key)))
    result.sort(key=lambda c: (c.is_baseline, c.rank_after is None, c.rank_after or 0, -(c.after or 0)))
    return result


@dataclass(frozen=True)
class ReleaseChanges:
    release: QrelsRelease
    previous_number: int
    before: list[dict]
    after: list[dict]
    new_judgments: dict[str, int]
    judgment_changes: dict[str, dict]  # {code: {"new", "flipped": {"0->1": n}, "dropped"}}; {} if not kept
    is_current: bool
    waiting: int  # submissions not yet scored with this release (while it is current)


def release_changes(release: QrelsRelease) -> ReleaseChanges | None:
    """Before and after of `release`, or None when nothing was kept (its phase's first
    release, or one made before the standings were kept)."""
    standings = ReleaseStandings.objects.filter(release=release).first()
    if standings is None:
        return None
    phase = release.phase
    later = (ReleaseStandings.objects.filter(release__phase=phase, release__number__gt=release.number)
             .order_by("release__number").first())
    is_current = later is None
    waiting = 0
    if is_current:
        counted = phase.submissions.filter(status__in=Submission.PENDING)
        waiting = counted.count()
    previous = phase.qrels_releases.filter(number__lt=release.number).order_by("-number").first()
    return ReleaseChanges(release=release, previous_number=previous.number if previous else release.number - 1,
                          before=standings.rows, after=standing_rows(phase) if is_current else later.rows,
                          new_judgments=standings.new_judgments,
                          judgment_changes=standings.judgment_changes, is_current=is_current, waiting=waiting)
