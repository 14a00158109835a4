"""The per-query values frozen with a final phase's official results, for the overview
paper's significance marks (leaderboards/paper_marks.py).

The frozen CSV and JSON (leaderboards/snapshots.py) hold the means the public saw at the
reveal; a test against a baseline needs the values per query behind them. A re-scoring after
the reveal (a new qrels version) rewrites a run's `QueryScores`, so the values are copied
onto the snapshot when it is frozen: the tables made from it then never change. Kept with the
snapshot and never served: only the marks derived from them are published.

    {"metric": primary metric, "missing": the competition's missing-subset rule,
     "significance": {"test", "correction", "alpha", "trials", "seed"} (the rank bands' settings),
     "columns": {average label: [subset codes]},
     "rows": [{"submission": id, "values": {code: {qid: value}}}] in the snapshot's row order}
"""
from __future__ import annotations

from collections import defaultdict

from cupboard.competitions.selectors import ALL
from cupboard.leaderboards.selectors import Leaderboard
from cupboard.leaderboards.standings import band_settings
from cupboard.submissions.models import QueryScores


def frozen_queries(leaderboard: Leaderboard) -> dict:
    """The payload above for the leaderboard being frozen (only its shown subsets, only its rows)."""
    competition = leaderboard.competition
    metric = competition.primary_metric
    codes = [column.key for column in leaderboard.subset_columns]
    groups = dict(competition.subsets.filter(code__in=codes).values_list("code", "group__name"))
    columns = {column.label: [code for code in codes if column.key in (ALL, groups.get(code))]
               for column in leaderboard.average_columns}
    ids = [entry.submission_id for entry in leaderboard.entries]
    found: dict[int, dict[str, dict[str, float]]] = defaultdict(dict)
    for submission_id, code, values in (QueryScores.objects.filter(submission_id__in=ids, subset__code__in=codes)
                                        .values_list("submission_id", "subset__code", f"values__{metric}")):
        if values:
            found[submission_id][code] = values
    settings = band_settings(competition)
    return {"metric": metric, "missing": competition.missing_subset, "columns": columns,
            "significance": {"test": settings.test, "correction": settings.correction, "alpha": settings.alpha,
                             "trials": settings.trials, "seed": settings.seed},
            "rows": [{"submission": submission_id, "values": found.get(submission_id or 0, {})} for submission_id in ids]}
