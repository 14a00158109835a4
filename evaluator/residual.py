"""Residual collections: a run without the documents already judged for its topics.

A campaign in rounds (TREC-COVID) scores rounds 2 and later on the residual collection:
for each topic, the documents judged in earlier rounds' qrels are removed from a run
before it is scored, so a run is not rewarded for finding again what the organizers
already published (Anserini's `filter_run_with_qrels` does the same to a file). The
documents below them move up: a run must therefore be read deeper than the scored depth
(`residual_keep_depth`), and the scorer then cuts the residual run at its depth, so the
values equal `trec_eval -c -M depth` on the filtered file.

The same removal serves every consumer of a scored run: the platform's scores and
Judged@k, the per-topic reports, pools (which then skip documents already judged) and
`python -m evaluator score --residual-qrels`.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from .records import Problem, Qrels, Run, SubsetResult

if TYPE_CHECKING:
    import pyarrow as pa

_SEP = " "  # neither a qid nor a docid holds whitespace: "qid docid" names one pair


@dataclass(frozen=True, slots=True)
class Removed:
    """What a residual run lost: per query, the removed docids in the run's order (score
    descending), and the files that judged them (the why a page shows)."""

    by_query: dict[str, list[str]] = field(default_factory=dict)
    sources: tuple[str, ...] = ()

    @property
    def count(self) -> int:
        return sum(len(docids) for docids in self.by_query.values())


def residual_keep_depth(max_depth: int) -> int:
    """How deep a run is read before its judged documents are removed: all of it (at most
    the `max_depth` a run may hold), since any document may move up into the scored depth."""
    return max_depth


def judged_keys(qrels: Iterable[Qrels]) -> pa.Array:
    """One "qid docid" string per judgment of every qrels given (any label: a document judged
    non-relevant was judged too)."""
    import pyarrow as pa

    from .io.texts import arrow

    parts = []
    for one in qrels:
        columns = one.columns
        qids = pa.array(columns.qids, pa.large_string()).take(pa.array(columns.owner))
        parts.append(_joined(qids, arrow(columns.docids)))
    return pa.concat_arrays(parts) if parts else pa.array([], pa.large_string())


def residual_run(run: Run, judged: Sequence[Qrels], *, sources: Sequence[str] = ()) -> tuple[Run, Removed]:
    """`run` without each (query, document) pair any of `judged` holds, and what was removed.
    Row order is kept (scoring orders by score, as trec_eval does)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    names, codes = run.query_codes()
    docids = run.docid_array()
    qids = pa.array(names.tolist(), pa.large_string()).take(pa.array(codes))
    hit = pc.is_in(_joined(qids, docids), value_set=judged_keys(judged)).to_numpy(zero_copy_only=False)
    if not hit.any():
        return run, Removed({}, tuple(sources))
    scores = np.asarray(run.scores, dtype=np.float64)
    gone = np.flatnonzero(hit)
    gone = gone[np.lexsort((-scores[gone], codes[gone]))]
    by_query: dict[str, list[str]] = {}
    for code, docid in zip(codes[gone].tolist(), docids.take(pa.array(gone)).to_pylist(), strict=True):
        by_query.setdefault(names[code], []).append(docid)
    keep = np.flatnonzero(~hit)
    residual = Run.from_columns(names=names, codes=codes[keep], docids=docids.take(pa.array(keep)),
                                scores=scores[keep], tag=run.tag)
    return residual, Removed(by_query, tuple(sources))


def residual_result(result: SubsetResult, removed: Removed, *, file: str) -> SubsetResult:
    """`result` carrying what was removed, and a warning that says how many and why."""
    import dataclasses

    if not removed.count:
        return result
    why = Problem("residual", f"{removed.count} documents of {len(removed.by_query)} queries were removed before "
                  f"scoring: judged already in {', '.join(removed.sources)} (residual collection)", file,
                  severity="warning")
    return dataclasses.replace(result, removed=removed.by_query, warnings=(*result.warnings, why))


def _joined(qids: pa.Array, docids: pa.Array) -> pa.Array:
    import pyarrow as pa
    import pyarrow.compute as pc

    return pc.binary_join_element_wise(qids.cast(pa.large_string()), docids.cast(pa.large_string()),
                                        pa.scalar(_SEP, pa.large_string()))
