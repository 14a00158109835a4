"""Which runs of the official results are significantly better than each baseline, per
column (a subset, or an average), for the overview paper's tables (leaderboards/paper_tables.py).

The test, the correction and alpha are the ones the phase's rank bands use (the competition's
YAML `significance`, frozen with the snapshot), run by the evaluator (`against_baseline`):
for each baseline and column, the team runs on that column are one family, corrected
together; a run is marked when its adjusted p is below alpha and its mean is above the
baseline's. An average is tested on the per-query values of all its subsets together, each
query weighted so their mean is the average (as the rank bands test it): a run without a
subset counts 0 on its queries under the `zero` rule and leaves the column under `incomplete`.
Everything comes from the snapshot (leaderboards/frozen_queries.py), so the marks never change;
they are computed once and kept (`SnapshotMarks`): a 100-team board of 18 languages takes a
worker tens of seconds (docs/benchmarks.md).
"""
from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

Values = dict[str, dict[str, float]]  # {code: {qid: value}} of one row


def _queries(rows: Sequence[Values], codes: Sequence[str]) -> dict[str, list[str]]:
    """Each subset's queries: the union over rows (a query a row lacks counts 0 for it)."""
    return {code: sorted({qid for row in rows for qid in row.get(code, {})}) for code in codes}


def pooled(row: Values, codes: Sequence[str], queries: Mapping[str, list[str]], missing: str) -> dict[str, float] | None:
    """The row's values over `codes` as one set of queries ("code/qid"), each weighted so
    their mean is the mean of the subsets' means; None when the row is not in the column."""
    total = sum(len(queries[code]) for code in codes)
    if total == 0 or not any(code in row for code in codes):
        return None
    if missing != "zero" and not all(code in row for code in codes):
        return None
    found: dict[str, float] = {}
    for code in codes:
        values, weight = row.get(code, {}), total / (len(codes) * len(queries[code] or [""]))
        found |= {f"{code}/{qid}": values.get(qid, 0.0) * weight for qid in queries[code]}
    return found


def baseline_marks(payload: dict, baselines: Sequence[int]) -> dict[int, dict[str, list[int]]]:
    """{row index: {column (a subset code or an average label): [k, ...]}}: the baselines
    (k-th of `baselines`, row indices, from 0) the row is significantly better than there."""
    from evaluator.significance import against_baselines

    rows: list[Values] = [row["values"] for row in payload["rows"]]
    codes = list(dict.fromkeys(code for row in rows for code in row))
    columns = {code: [code] for code in codes} | payload["columns"]
    queries = _queries(rows, codes)
    s = payload["significance"]
    teams = [i for i in range(len(rows)) if i not in baselines]
    marks: dict[int, dict[str, list[int]]] = {}
    for key, members in columns.items():
        members = [code for code in members if code in queries]
        values = {i: pooled(rows[i], members, queries, payload["missing"]) for i in range(len(rows))}
        runs = [values[i] for i in teams]
        p = against_baselines(runs, [values[b] for b in baselines], test=s["test"], correction=s["correction"],
                              trials=s["trials"], seed=s["seed"])
        for k, b in enumerate(baselines):
            base = values[b]
            for i, run, p_value in zip(teams, runs, p[k], strict=True):
                if run is not None and base is not None and p_value is not None and p_value < s["alpha"] \
                        and sum(run.values()) > sum(base.values()):
                    marks.setdefault(i, {}).setdefault(key, []).append(k)
    return marks


def _computed(snapshot) -> dict[str, dict[str, list[int]]]:
    payload = json.loads(snapshot.per_query) if snapshot.per_query else None
    rows = json.loads(snapshot.json)["rows"]
    baselines = [i for i, row in enumerate(rows) if row["baseline"]]
    marks = baseline_marks(payload, baselines) if payload and baselines else {}
    return {str(i): columns for i, columns in marks.items()}


def snapshot_marks_store(snapshot) -> None:
    """Compute and keep the snapshot's marks (the beat task, right after the freeze:
    leaderboards/releases.py); a second call changes nothing."""
    from django.db import IntegrityError, transaction

    from cupboard.leaderboards.models import SnapshotMarks

    if SnapshotMarks.objects.filter(snapshot=snapshot).exists():
        return
    marks = _computed(snapshot)
    try:
        with transaction.atomic():
            SnapshotMarks.objects.create(snapshot=snapshot, marks=marks)
    except IntegrityError:
        pass  # another process stored the same marks meanwhile


def snapshot_marks(snapshot) -> dict[int, dict[str, list[int]]]:
    """The snapshot's marks as kept, else computed now (a snapshot frozen without the beat
    task): a page reads and never writes."""
    from cupboard.leaderboards.models import SnapshotMarks

    stored = SnapshotMarks.objects.filter(snapshot=snapshot).values_list("marks", flat=True).first()
    return {int(i): columns for i, columns in (stored if stored is not None else _computed(snapshot)).items()}
