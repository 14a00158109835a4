"""Fusing runs into baselines: MIRACL's hybrid (BM25 + mDPR) and reciprocal-rank fusion.

Both work the same way: each input list contributes a score to each of its documents
(a weighted normalised score, or 1 / (k + rank)); contributions of the same (query,
docid) are summed; the result is ranked the trec_eval way and cut at `depth`. A document
missing from a list gets nothing from it, which for the hybrid is MIRACL's "scores 0 there".
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .io.order import position_in_query, trec_order
from .records import Run


def _ranked(run: Run, depth: int) -> tuple[pa.Array, pa.Array, np.ndarray, np.ndarray]:
    """(qids, docids, scores, 0-based ranks) of the top `depth` of each query, trec order."""
    qids = pa.array(run.qids, type=pa.string())
    docids = pa.array(run.docids, type=pa.string())
    scores = np.asarray(run.scores, dtype=np.float64)
    codes = pc.dictionary_encode(qids).indices.to_numpy(zero_copy_only=False).astype(np.int64)
    order, _, _ = trec_order(codes, scores, docids)
    rank = position_in_query(codes[order])
    keep = order[rank < depth]
    take = pa.array(keep)
    return qids.take(take), docids.take(take), scores[keep], rank[rank < depth]


def _fused(parts: list[tuple[pa.Array, pa.Array, np.ndarray]], *, depth: int, tag: str) -> Run:
    table = pa.table({"q": pa.concat_arrays([p[0] for p in parts]), "d": pa.concat_arrays([p[1] for p in parts]),
                      "s": np.concatenate([p[2] for p in parts])})
    summed = table.group_by(["q", "d"]).aggregate([("s", "sum")])
    q, d = summed.column("q").combine_chunks(), summed.column("d").combine_chunks()
    s = summed.column("s_sum").to_numpy()
    codes = pc.dictionary_encode(q).indices.to_numpy(zero_copy_only=False).astype(np.int64)
    order, _, _ = trec_order(codes, s, d)
    order = order[position_in_query(codes[order]) < depth]
    take = pa.array(order)
    return Run(q.take(take).to_numpy(zero_copy_only=False), d.take(take).to_numpy(zero_copy_only=False),
               s[order], tag=tag)


def min_max(queries: pa.Array, scores: np.ndarray) -> np.ndarray:
    """Scores rescaled to [0, 1] within each query. Rows come in trec order, so a query's
    maximum is its first row and its minimum its last. A query whose scores are all equal
    (e.g. a single hit) gets 1 for each: they are all its best."""
    codes = pc.dictionary_encode(queries).indices.to_numpy(zero_copy_only=False)
    n = len(codes)
    if not n:
        return scores.copy()
    starts = np.flatnonzero(np.r_[True, codes[1:] != codes[:-1]])
    sizes = np.diff(np.r_[starts, n])
    high = np.repeat(scores[starts], sizes)
    low = np.repeat(scores[np.r_[starts[1:], n] - 1], sizes)
    span = high - low
    normalised: np.ndarray = np.divide(scores - low, span, out=np.ones(n), where=span > 0)
    return normalised


def hybrid_fusion(run_a: Run, run_b: Run, *, alpha: float = 0.5, depth: int = 1000, tag: str = "hybrid") -> Run:
    """MIRACL's hybrid baseline (Zhang et al., TACL 2023, BM25 + mDPR): per query, the top
    `depth` of each run are min-max normalised, and a document scores
    alpha * A + (1 - alpha) * B, where a document absent from a list scores 0 in it."""
    if not 0.0 <= alpha <= 1.0:
        raise ValueError(f"alpha must be between 0 and 1, not {alpha}")
    parts = []
    for run, weight in ((run_a, alpha), (run_b, 1.0 - alpha)):
        qids, docids, scores, _ = _ranked(run, depth)
        parts.append((qids, docids, weight * min_max(qids, scores)))
    return _fused(parts, depth=depth, tag=tag)


def reciprocal_rank_fusion(runs: Sequence[Run], *, k: int = 60, depth: int = 1000, tag: str = "rrf") -> Run:
    """Reciprocal-rank fusion (Cormack, Clarke & Büttcher, SIGIR 2009): a document scores
    the sum over runs of 1 / (k + rank), rank 1-based in trec order within each run's top
    `depth`; a run that misses the document adds nothing."""
    if not runs:
        raise ValueError("reciprocal-rank fusion needs at least one run")
    parts = []
    for run in runs:
        qids, docids, _, rank = _ranked(run, depth)
        parts.append((qids, docids, 1.0 / (k + rank + 1.0)))
    return _fused(parts, depth=depth, tag=tag)
