"""Plausible runs for the demo's teams and baselines, made from the judgments themselves.

A run of quality q retrieves each relevant document with probability 0.45 + 0.5 q and
scores it above the rest by about 3 q standard deviations (more for higher labels);
judged non-relevant documents are hard negatives, the rest of the ranking is filler
documents nobody judged. Different qualities give the spread of scores a real
leaderboard shows (roughly 0.2-0.7 nDCG@10), and a seed per (system, subset) makes every
run reproducible. Everything is numpy over all queries at once: a MIRACL dev set at
depth 100 takes a fraction of a second.
"""
from __future__ import annotations

import io
import zlib

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pcsv

from .data import SubsetData

# Filler articles live far above any Wikipedia page id, so they never repeat a judged docid.
_FILLER_BASE = 900_000_000


def _rng(*parts: str) -> np.random.Generator:
    return np.random.default_rng([zlib.crc32("/".join(parts).encode())])


def subset_quality(quality: float, *, system: str, code: str, spread: float = 0.08) -> float:
    """A system's quality on one subset: its overall quality give or take a per-subset
    difference, so no system is best everywhere."""
    return float(np.clip(quality + _rng("quality", system, code).normal(0, spread), 0.02, 0.98))


def demo_run(data: SubsetData, *, quality: float, system: str, code: str, depth: int = 100,
             missing: float = 0.01) -> bytes:
    """A TREC run (`qid Q0 docid rank score tag`) for `data`'s topics, as bytes."""
    rng = _rng("run", system, code)
    qids = list(data.topics)
    kept = [i for i in range(len(qids)) if rng.random() >= missing] or [0]
    judged_q, judged_doc, judged_label = [], [], []
    for i in kept:
        for docid, label in data.judgments.get(qids[i], {}).items():
            judged_q.append(i)
            judged_doc.append(docid)
            judged_label.append(label)
    labels = np.asarray(judged_label, dtype=np.float64)
    top = max(labels.max(initial=1.0), 1.0)
    relevant = labels > 0
    take = rng.random(labels.size) < np.where(relevant, 0.45 + 0.5 * quality, 0.7)
    shift = np.where(relevant, 3.0 * quality * np.sqrt(labels / top), 0.4)
    judged_scores = rng.normal(shift, 1.0)[take]

    filler_q = np.repeat(np.asarray(kept), depth)
    filler_rank = np.tile(np.arange(depth), len(kept))
    filler_docs = pc.binary_join_element_wise(
        pc.cast(pa.array(_FILLER_BASE + filler_q * depth + filler_rank), pa.string()),
        pc.cast(pa.array(rng.integers(0, 40, filler_q.size)), pa.string()), "#")
    q = np.concatenate([np.asarray(judged_q, dtype=np.int64)[take], filler_q])
    scores = np.concatenate([judged_scores, rng.normal(-0.3, 1.0, filler_q.size)])
    docs = pa.concat_arrays([pa.array(np.asarray(judged_doc, dtype=object)[take], pa.string()), filler_docs])

    order = np.lexsort((-scores, q))
    q, scores = q[order], scores[order]
    starts = np.flatnonzero(np.r_[True, q[1:] != q[:-1]])
    rank = np.arange(q.size) - np.repeat(starts, np.diff(np.r_[starts, q.size])) + 1
    keep = rank <= depth
    table = pa.table({
        "qid": pa.array(np.asarray(qids, dtype=object)[q[keep]], pa.string()),
        "q0": pa.repeat("Q0", int(keep.sum())),
        "docid": docs.take(pa.array(order[keep])),
        "rank": rank[keep],
        "score": np.round(20.0 + 2.0 * scores[keep], 4),
        "tag": pa.repeat(system[:20] or "demo", int(keep.sum())),
    })
    out = io.BytesIO()
    pcsv.write_csv(table, out, pcsv.WriteOptions(include_header=False, delimiter=" ", quoting_style="none"))
    return out.getvalue()
