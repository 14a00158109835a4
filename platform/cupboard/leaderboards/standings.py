"""Rank bands, tiers and intervals of a phase's leaderboard, stored on its rows.

Computed by a whole rebuild of the rows (leaderboards/services.py) and, after a scoring's
board update, by a job once per burst of them (leaderboards/bands.py), in a worker, never
when a page is served: the page, the exports and the charts read
`LeaderboardRow.standings`. The statistics are the evaluator's (evaluator/rank_bands.py),
on the per-query values of the primary metric (QueryScores), for every column: each
subset, each group average, the overall average, and, while a group is still hidden,
the overall average over the revealed subsets (what participants' Avg and ranks are).
"""
from __future__ import annotations

import time
from collections.abc import Callable
from contextvars import ContextVar

import numpy as np
import orjson
from django.db.models.fields.json import KeyTextTransform

from cupboard.competitions.models import Competition, Phase
from cupboard.leaderboards.models import LeaderboardRow
from cupboard.submissions.models import QueryScores

# Key of the overall average over the revealed subsets, while some group is still hidden.
REVEALED_ALL = "all:revealed"
# Teams tested together at most: the pairwise tests grow with the square of it (docs/organizers.md, "Rank bands").
MAX_TEAMS = 100
# The phases whose re-test is put off to the end of a `leaderboards_retested_once` block (services.py).
PUT_OFF: ContextVar[set[int] | None] = ContextVar("standings_put_off", default=None)


def band_settings(competition: Competition):
    """The competition's choices (YAML `significance`) over the evaluator's defaults."""
    from evaluator.rank_bands import BandSettings

    chosen = competition.significance or {}
    return BandSettings(**{k: chosen[k] for k in ("test", "correction", "alpha") if chosen.get(k) is not None})


def _matrices(rows: list[LeaderboardRow], codes: list[str], metric: str) -> dict[str, np.ndarray]:
    """{code: rows x queries} of `metric`, NaN rows where a row's submission has no values there.
    Queries are the union over rows (one qrels version gives every row the same ones; during a
    re-scoring a query one row lacks counts 0 for it, as for a query a run did not answer)."""
    position = {row.submission_id: i for i, row in enumerate(rows)}
    found: dict[str, dict[int, dict[str, float]]] = {code: {} for code in codes}
    # The metric's values as JSON text, decoded with orjson (Python's json, through the JSON
    # field, took about twice the CPU for the same values).
    texts = (QueryScores.objects.filter(submission_id__in=position, subset__code__in=codes)
             .annotate(text=KeyTextTransform(metric, "values")).values_list("submission_id", "subset__code", "text"))
    for submission_id, code, text in texts:
        if text and (values := orjson.loads(text)):
            found[code][position[submission_id]] = values
    matrices = {}
    for code, by_row in found.items():
        if not by_row:
            continue
        qids = sorted({qid for values in by_row.values() for qid in values})
        column = {qid: k for k, qid in enumerate(qids)}
        # Rows with the same queries come in the same key order (jsonb's): each order is mapped
        # to columns once, then a row is one scatter, not a dictionary lookup per query.
        columns: dict[tuple[str, ...], np.ndarray] = {}
        matrix = np.full((len(rows), len(qids)), np.nan)
        for i, values in by_row.items():
            keys = tuple(values)
            if (at := columns.get(keys)) is None:
                at = columns[keys] = np.array([column[qid] for qid in keys], dtype=np.intp)
            matrix[i] = 0.0
            matrix[i, at] = np.array(list(values.values()), dtype=float)
        matrices[code] = matrix
    return matrices


def standings_compute(*, phase: Phase, groups: dict[str, list[str]], ranked_on: list[str],
                      between: Callable[[], None] = lambda: None) -> dict[int, dict]:
    """Every row's `standings` ({column key: {"low", "high", "tier", "ci"}}) by row id, from the
    rows and per-query values as they are now ({} for rows beyond MAX_TEAMS). Reads only: the
    bands job (leaderboards/bands.py) runs it without the phase lock, so board writes go on, and
    stops it by raising in `between` (called between subsets and columns) when they make it stale."""
    from evaluator.rank_bands import column_standings

    competition = phase.competition
    rows = list(LeaderboardRow.objects.filter(phase=phase).order_by("is_baseline", "rank", "pk")
                .only("pk", "submission_id", "is_baseline", "rank"))
    teams = [r for r in rows if not r.is_baseline]
    tested = teams[:MAX_TEAMS] + [r for r in rows if r.is_baseline]
    columns = {code: [code] for code in groups.get("all", [])} | groups
    if ranked_on != groups.get("all"):
        columns[REVEALED_ALL] = ranked_on
    matrices = _matrices(tested, list(groups.get("all", [])), competition.primary_metric)
    result = column_standings(matrices, columns, settings=band_settings(competition),
                              missing=competition.missing_subset, ranked=[not r.is_baseline for r in tested],
                              between=between)
    found = {row.pk: {key: {"low": s.low, "high": s.high, "tier": s.tier, "ci": [s.ci_low, s.ci_high]}
                      for key, by_row in result.items() if (s := by_row.get(i)) is not None}
             for i, row in enumerate(tested)}
    return {row.pk: found.get(row.pk, {}) for row in rows}


def standings_write(found: dict[int, dict]) -> None:
    """Save computed standings on the rows that still exist and differ (a board without
    per-query values writes nothing); the caller holds the phase lock."""
    rows = list(LeaderboardRow.objects.filter(pk__in=found).only("pk", "standings"))
    changed = [row for row in rows if found[row.pk] != row.standings]
    for row in changed:
        row.standings = found[row.pk]
    LeaderboardRow.objects.bulk_update(changed, ["standings"], batch_size=500)


def standings_store(*, phase: Phase, groups: dict[str, list[str]], ranked_on: list[str]) -> float:
    """Compute and save every row's standings now; the caller holds the phase lock. Returns
    the seconds it took (logged by the bench)."""
    put_off = PUT_OFF.get()
    if put_off is not None:
        put_off.add(phase.pk)
        return 0.0
    started = time.perf_counter()
    standings_write(standings_compute(phase=phase, groups=groups, ranked_on=ranked_on))
    return time.perf_counter() - started
