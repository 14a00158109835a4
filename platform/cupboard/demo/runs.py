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
import multiprocessing
import zlib
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

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
    qids = data.qid_array
    kept = np.flatnonzero(rng.random(len(qids)) >= missing)  # the same draws as one random() per query
    kept = kept if kept.size else np.zeros(1, np.int64)
    judged_all_q, judged_all_doc, judged_all_label = data.judgment_arrays
    in_kept = np.zeros(len(qids), bool)
    in_kept[kept] = True
    chosen = in_kept[judged_all_q]
    judged_q, judged_doc, labels = judged_all_q[chosen], judged_all_doc.filter(pa.array(chosen)), judged_all_label[chosen]
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
    q = np.concatenate([judged_q[take], filler_q])
    scores = np.concatenate([judged_scores, rng.normal(-0.3, 1.0, filler_q.size)])
    docs = pa.concat_arrays([judged_doc.filter(pa.array(take)), filler_docs])

    order = np.lexsort((-scores, q))
    q, scores = q[order], scores[order]
    starts = np.flatnonzero(np.r_[True, q[1:] != q[:-1]])
    rank = np.arange(q.size) - np.repeat(starts, np.diff(np.r_[starts, q.size])) + 1
    keep = rank <= depth
    table = pa.table({
        "qid": pa.array(qids[q[keep]], pa.string()),
        "q0": pa.repeat("Q0", int(keep.sum())),
        "docid": docs.take(pa.array(order[keep])),
        "rank": rank[keep],
        "score": np.round(20.0 + 2.0 * scores[keep], 4),
        "tag": pa.repeat(system[:20] or "demo", int(keep.sum())),
    })
    out = io.BytesIO()
    pcsv.write_csv(table, out, pcsv.WriteOptions(include_header=False, delimiter=" ", quoting_style="none"))
    return out.getvalue()


@dataclass(frozen=True)
class RunSpec:
    """One system's runs on a phase: a run per subset of `pieces`."""

    system: str
    quality: float
    spread: float
    seed: str  # whose per-subset strengths it has: a team's runs share the team's
    label: str  # the phase as text, part of each run's seed
    pieces: dict  # {subset code: SubsetData}
    depth: int


def make_runs(spec: RunSpec) -> dict[str, bytes]:
    """{subset code: run bytes} for one spec."""
    return {code: demo_run(piece, quality=subset_quality(spec.quality, system=spec.seed, code=code, spread=spec.spread),
                           system=spec.system, code=f"{spec.label}/{code}", depth=spec.depth)
            for code, piece in spec.pieces.items()}


_PENDING: list[RunSpec] = []  # what forked workers read, so only the finished runs travel


def _make(index: int) -> dict[str, bytes]:
    return make_runs(_PENDING[index])


def demo_runs(specs: list[RunSpec]) -> list[dict[str, bytes]]:
    """`make_runs` for every spec, on every core: a phase's ~15 systems are independent, and
    forked workers start with numpy and pyarrow imported and the specs in memory."""
    from evaluator.engines.parallel import usable_cores

    global _PENDING
    workers = min(usable_cores(), len(specs))
    if workers <= 1 or "fork" not in multiprocessing.get_all_start_methods():
        return [make_runs(spec) for spec in specs]
    _PENDING = specs
    try:
        with ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("fork")) as pool:
            return list(pool.map(_make, range(len(specs))))
    finally:
        _PENDING = []
