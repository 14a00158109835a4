"""The client's tables as pandas DataFrames, from the API's JSON (`Cupboard` calls these).

pandas is imported here and only here in the client, so `python -m evaluator submit`,
which uses the client's upload and wait, never loads it. The shapes are tidy: one row per
thing (a topic, a run on the board, a phase) and one column per value. Score columns are
named as in the site's leaderboard.csv, `"<metric> <column>"` where the column is a subset's
code (`"nDCG@10 sw"`) or an average's label (`"nDCG@10 Avg"`, `"nDCG@10 K.Avg"`): one name
for one number, whichever way the board was fetched.
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pandas as pd

BOARD_COLUMNS = ("rank", "team", "method", "baseline", "qrels_version")
META = "meta:"  # a run-metadata column, as leaderboard.csv names it


def score_column(metric: str, column: str) -> str:
    return f"{metric} {column}"


def topics_frame(files: Iterable[tuple[str, dict[str, str]]]) -> pd.DataFrame:
    """(subset, qid, query) for each (subset, {qid: query}) read, in file order."""
    rows = [(subset, qid, query) for subset, topics in files for qid, query in topics.items()]
    return pd.DataFrame(rows, columns=["subset", "qid", "query"], dtype="string")


def leaderboard_frame(board: dict[str, Any]) -> pd.DataFrame:
    """leaderboard.json (or official.json) as one row per run: rank (None for a baseline
    or an unranked run), team, method, baseline, qrels_version, one `meta:<name>` column per
    run-metadata field shown, then for each metric (the competition's order) its averages
    (Avg...) and subsets (codes): `"nDCG@10 Avg"`, `"nDCG@10 sw"`. Values as the server sent
    them (rounded for participants to `.attrs["rounded_to"]`); a value the viewer may not
    see, or a subset without a run, is NaN. The board's own facts are in `.attrs`."""
    averages = list(board.get("averages") or [])
    codes = [s["code"] for s in board.get("subsets") or []]
    fields = [f["name"] for f in board.get("metadata_fields") or []]
    scores = [score_column(m, c) for m in board["metrics"] for c in (*averages, *codes)]
    rows = []
    for row in board.get("rows") or []:
        values = {score_column(m, label): v for label, by_metric in (row.get("averages") or {}).items()
                  for m, v in by_metric.items()}
        values |= {score_column(m, code): v for code, by_metric in (row.get("values") or {}).items()
                   for m, v in by_metric.items()}
        metadata = row.get("metadata") or {}
        rows.append([row["rank"], row["team"], row["method"], row["baseline"], row["qrels_version"],
                     *(metadata.get(name) for name in fields), *(values.get(c) for c in scores)])
    frame = pd.DataFrame(rows, columns=[*BOARD_COLUMNS, *(META + name for name in fields), *scores])
    frame = frame.astype({"rank": "Int64", **dict.fromkeys(scores, "float64")})
    frame.attrs = {key: board.get(key) for key in ("competition", "phase", "metrics", "primary_metric", "rounded_to",
                                                   "qrels_version", "as_of", "frozen_at", "frozen_since", "filter")}
    frame.attrs |= {"subsets": codes, "averages": averages}
    return frame


def scores_frame(submission: dict[str, Any]) -> pd.DataFrame:
    """A submission's scores: one row per average (under the site's labels, K.Avg, Avg) then
    per subset (its code), indexed by that name, one column per metric in the competition's
    order; empty while the phase shows no score. The submission's state is in `.attrs`."""
    labels = submission.get("average_labels") or {}
    named = [(labels.get(key, key), values) for key, values in (submission.get("averages") or {}).items()]
    named += sorted((submission.get("scores") or {}).items())
    metrics = list(dict.fromkeys(m for _, values in named for m in values))
    frame = pd.DataFrame([[values.get(m) for m in metrics] for _, values in named],
                         index=pd.Index([name for name, _ in named], name="subset", dtype="object"),
                         columns=metrics, dtype="float64")
    frame.attrs = {"submission": submission, "decimals": submission.get("decimals")}
    return frame
