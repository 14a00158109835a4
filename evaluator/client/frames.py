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


def score_cells(table: dict[str, dict[str, float | None]]) -> dict[str, float | None]:
    """{column: {metric: value}} as {"<metric> <column>": value}."""
    return {score_column(m, column): v for column, by_metric in table.items() for m, v in by_metric.items()}


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
        values = score_cells({**(row.get("averages") or {}), **(row.get("values") or {})})
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


def competitions_frame(competitions: list[dict[str, Any]]) -> pd.DataFrame:
    """One row per competition: slug, title, url, starts_at (UTC) and its phases' slugs."""
    frame = pd.DataFrame([(c["slug"], c["title"], c["url"], c.get("starts_at"), [p["slug"] for p in c["phases"]])
                          for c in competitions], columns=["slug", "title", "url", "starts_at", "phases"])
    return _instants(frame, ["starts_at"])


def phases_frame(phases: list[dict[str, Any]]) -> pd.DataFrame:
    """One row per phase, in the competition's order, a column per field the API gives
    (slug, name, opens, closes, is_open, ... the *_url addresses); instants as UTC timestamps."""
    columns = list(dict.fromkeys(key for phase in phases for key in phase)) or ["slug", "name", "opens", "closes"]
    return _instants(pd.DataFrame(phases, columns=columns), ["opens", "closes", "reveal_at"])


def history_frame(history: dict[str, Any]) -> pd.DataFrame:
    """history.json long: one row per (at, team) where the team's rank or value of the board's
    primary metric (its Avg column) changed, and its last at the latest instant (a value holds
    until the team's next row); `.attrs`: metric, rounded_to, instants."""
    frame = pd.DataFrame(history.get("points") or [], columns=["at", "team", "rank", "value"])
    frame = _instants(frame.astype({"rank": "Int64", "value": "float64"}), ["at"])
    frame.attrs = {key: history.get(key) for key in ("competition", "phase", "metric", "rounded_to", "decimals",
                                                     "frozen_since", "instants")}
    return frame


SUBMISSION_COLUMNS = ("id", "number", "method_name", "status", "status_reason", "created_at", "scored_at",
                      "qrels_release", "is_baseline", "selected_for_final", "disqualified")


def submissions_frame(submissions: list[dict[str, Any]]) -> pd.DataFrame:
    """One row per submission as the API lists them (newest first): its state, then its
    scores as the board's columns ("nDCG@10 Avg", "nDCG@10 sw"; NaN where none is shown)."""
    rows: list[dict[str, Any]] = []
    scores: dict[str, None] = {}
    for answer in submissions:
        labels = answer.get("average_labels") or {}
        averages = {labels.get(key, key): values for key, values in (answer.get("averages") or {}).items()}
        cells = score_cells({**averages, **(answer.get("scores") or {})})
        scores |= dict.fromkeys(cells)
        rows.append({**{key: answer.get(key) for key in SUBMISSION_COLUMNS}, **cells})
    frame = pd.DataFrame(rows, columns=[*SUBMISSION_COLUMNS, *scores]).astype(dict.fromkeys(scores, "float64"))
    frame.attrs = {"submissions": submissions}
    return _instants(frame, ["created_at", "scored_at"])


def _instants(frame: pd.DataFrame, columns: list[str]) -> pd.DataFrame:
    """ISO 8601 instants as UTC timestamps (NaT where there is none)."""
    for column in columns:
        if column in frame.columns:
            frame[column] = pd.to_datetime(frame[column], utc=True, format="ISO8601")
    return frame
