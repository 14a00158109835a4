"""The vectorised engine's kernels: one numpy function per measure, every query at once.

Which measures there are, their names and parameters, is `evaluator.measures`; a kernel
says which measure it computes with `@KERNELS.of(name)`, and the table is checked against the
declarations when this module is imported.

What every metric means is trec_eval's (`-c`), which `evaluator.engines.scoring` implements and
the test suite checks query by query against trec_eval 10 built from its source, at full
precision (tests/evaluator/test_trec_eval_differential.py):

- every query in the qrels counts; a query the run omits scores 0 on every metric;
- documents are ordered by score descending, then docid descending (byte order), the
  rank column is ignored, and only the first `depth` documents of each query count;
- unjudged documents are non-relevant; relevant means label >= relevance level (1 unless
  the Evaluator or the metric's `rel=` says otherwise);
- a query whose judgments hold no relevant document is still counted and scores 0 on every
  metric (trec_eval evaluates it: its ideal DCG and relevant count are 0, which trec_eval
  turns into 0, not into an undefined value).

The formulas themselves, with their sources, are the docstrings of the kernels below
(one vectorised function per measure, computing every query's value at once).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Protocol

import numpy as np

from ..measures import FAST, Kernels


class Judgments(Protocol):
    """What kernels need from the qrels side (implemented by `evaluator.engines.scoring.JudgmentIndex`)."""

    def relevant_counts(self, rel: int) -> np.ndarray: ...
    def nonrelevant_counts(self, rel: int) -> np.ndarray: ...
    def ideal_dcg(self, gain: str, cutoff: int | None) -> np.ndarray: ...


@dataclass(frozen=True, slots=True, eq=False)
class Ranked:
    """A run ranked the trec_eval way, one row per (query, document) within the depth.

    Rows are sorted by query index, then rank; `rank` is 0-based. `label` is the judgment
    (0 when unjudged) and `judged` says whether there is one. Queries are numbered
    0..n_queries-1 in qrels order.
    """

    n_queries: int
    depth: int
    qidx: np.ndarray
    rank: np.ndarray
    label: np.ndarray
    judged: np.ndarray
    judgments: Judgments


Kernel = Callable[..., np.ndarray]
KERNELS: Kernels[Kernel] = Kernels(FAST)


def gains(labels: np.ndarray, gain: str) -> np.ndarray:
    """Gain of each label: the label itself (trec_eval) or 2^label - 1 (Burges et al., 2005,
    as CLIRMatrix reports it). Negative labels gain 0, as in trec_eval."""
    clipped = np.maximum(labels, 0).astype(np.float64)
    values: np.ndarray = clipped if gain == "label" else np.exp2(clipped) - 1.0
    return values


def _per_query(r: Ranked, mask: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
    return np.bincount(r.qidx[mask], weights=None if weights is None else weights[mask],
                       minlength=r.n_queries).astype(np.float64)


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    # trec_eval turns 0/0 (no relevant document) into 0
    out: np.ndarray = np.divide(num, den, out=np.zeros_like(num), where=den > 0)
    return out


@KERNELS.of("nDCG")
def ndcg(r: Ranked, cutoff: int | None, *, rel: int, gain: str) -> np.ndarray:
    """nDCG@k (Järvelin & Kekäläinen, TOIS 2002; trec_eval `ndcg_cut`): DCG of the top k,
    sum of gain / log2(rank + 1) with 1-based ranks, divided by the DCG of the ideal
    ordering of every judged document of the query cut at k. Without k (trec_eval `ndcg`)
    the DCG is over the whole ranking (up to the depth) and the ideal over every judged
    document, however many: 150 relevant documents with the first 100 retrieved score
    0.7448, not 1. Graded: the relevance level does not apply, as in trec_eval."""
    top = r.rank < (cutoff or r.depth)
    discounted = gains(r.label[top], gain) / np.log2(r.rank[top] + 2.0)  # the top rows' only, not the depth's
    dcg = np.bincount(r.qidx[top], weights=discounted, minlength=r.n_queries).astype(np.float64)  # int when empty
    return _ratio(dcg, r.judgments.ideal_dcg(gain, cutoff))


def _relevant_in_top(r: Ranked, cutoff: int | None, rel: int) -> np.ndarray:
    """Relevant rows within the cutoff (None: the whole ranking, up to the depth)."""
    rows: np.ndarray = (r.rank < (cutoff or r.depth)) & r.judged & (r.label >= rel)
    return rows


@KERNELS.of("R")
def recall(r: Ranked, cutoff: int, *, rel: int, gain: str) -> np.ndarray:
    """R@k (trec_eval `recall_k`): relevant documents in the top k / relevant documents judged."""
    return _ratio(_per_query(r, _relevant_in_top(r, cutoff, rel)), r.judgments.relevant_counts(rel))


@KERNELS.of("P")
def precision(r: Ranked, cutoff: int, *, rel: int, gain: str) -> np.ndarray:
    """P@k (trec_eval `P_k`): relevant documents in the top k / k, even when fewer were retrieved."""
    return _per_query(r, _relevant_in_top(r, cutoff, rel)) / cutoff


@KERNELS.of("Success")
def success(r: Ranked, cutoff: int, *, rel: int, gain: str) -> np.ndarray:
    """Success@k (trec_eval `success_k`): 1 when a relevant document is in the top k, else 0."""
    return (_per_query(r, _relevant_in_top(r, cutoff, rel)) > 0).astype(np.float64)


@KERNELS.of("RR")
def reciprocal_rank(r: Ranked, cutoff: int, *, rel: int, gain: str) -> np.ndarray:
    """RR@k (Voorhees, TREC-8 QA 2000; trec_eval `recip_rank` on the run cut at k):
    1 / rank of the first relevant document in the top k, 0 when there is none."""
    rows = np.flatnonzero(_relevant_in_top(r, cutoff, rel))
    # rows are sorted by query then rank: the first row of each query is its best
    first = rows[np.r_[True, r.qidx[rows[1:]] != r.qidx[rows[:-1]]]] if len(rows) else rows
    values = np.zeros(r.n_queries)
    values[r.qidx[first]] = 1.0 / (r.rank[first] + 1.0)
    return values


@KERNELS.of("AP")
def average_precision(r: Ranked, cutoff: int, *, rel: int, gain: str) -> np.ndarray:
    """AP@k (trec_eval `map_cut_k`; `map` when k is the depth): the sum, over relevant
    documents in the top k, of the precision at their rank, divided by the number of
    relevant documents judged (not by k: unretrieved relevant documents count 0)."""
    hits = _relevant_in_top(r, cutoff, rel)
    total = _per_query(r, hits, _within_query_cumsum(r, hits) / (r.rank + 1.0))
    return _ratio(total, r.judgments.relevant_counts(rel))


@KERNELS.of("Bpref")
def bpref(r: Ranked, cutoff: int | None, *, rel: int, gain: str) -> np.ndarray:
    """bpref (Buckley & Voorhees, SIGIR 2004; trec_eval `bpref`): over the R relevant
    documents, the mean of 1 - min(n, R) / min(N, R) at each relevant one retrieved, n being
    the judged non-relevant documents above it and N all judged non-relevant ones (label 0
    up to the relevance level). Unjudged documents and negative labels are skipped."""
    nonrel = r.judged & (r.label >= 0) & (r.label < rel)
    hits = _relevant_in_top(r, cutoff, rel)
    before = _within_query_cumsum(r, nonrel)
    counts = r.judgments.relevant_counts(rel)
    big_r = counts[r.qidx]
    cap = np.minimum(r.judgments.nonrelevant_counts(rel)[r.qidx], big_r)
    share = 1.0 - np.divide(np.minimum(before, big_r), cap, out=np.zeros(len(cap)), where=cap > 0)
    return _ratio(_per_query(r, hits, np.where(before > 0, share, 1.0)), counts)


@KERNELS.of("Rprec")
def r_precision(r: Ranked, cutoff: int | None, *, rel: int, gain: str) -> np.ndarray:
    """R-precision (trec_eval `Rprec`): relevant documents in the top R / R, R being the
    query's relevant documents judged."""
    counts = r.judgments.relevant_counts(rel)
    return _ratio(_per_query(r, _relevant_in_top(r, cutoff, rel) & (r.rank < counts[r.qidx])), counts)


@KERNELS.of("NumRelRet")
def relevant_retrieved(r: Ranked, cutoff: int | None, *, rel: int, gain: str) -> np.ndarray:
    """num_rel_ret (trec_eval): relevant documents retrieved within the depth; its
    summary over queries is the sum, as trec_eval prints it."""
    return _per_query(r, _relevant_in_top(r, cutoff, rel))


def _within_query_cumsum(r: Ranked, flags: np.ndarray) -> np.ndarray:
    """How many rows of the same query up to and including each row have `flags` set."""
    running = np.cumsum(flags)
    starts = np.flatnonzero(np.r_[True, r.qidx[1:] != r.qidx[:-1]]) if len(flags) else np.zeros(0, int)
    before = running[starts] - flags[starts]
    counts: np.ndarray = running - np.repeat(before, np.diff(np.r_[starts, len(flags)]))
    return counts


@KERNELS.of("Judged")
def judged(r: Ranked, cutoff: int, *, rel: int, gain: str) -> np.ndarray:
    """Judged@k (ir_measures, after OpenNIR; MacAvaney et al.): judged documents in the top
    k / k. Labels do not matter, only whether a judgment exists."""
    return _per_query(r, (r.rank < cutoff) & r.judged) / cutoff


@KERNELS.of("Unjudged")
def unjudged(r: Ranked, cutoff: int, *, rel: int, gain: str) -> np.ndarray:
    """Unjudged@k (trec_eval 10 `unj_k`, Soboroff 2023): documents in the top k without a
    judgment, or judged -1 or -2 (trec_eval's "not in the pool" and "in the pool, not
    judged"), / k. Fewer than k retrieved: the rest count as judged, so Judged@k + Unjudged@k
    is the share of the top k retrieved (1 for a run with k documents per query), for qrels
    without -1 or -2 labels."""
    unseen = ~r.judged | (r.label == -1) | (r.label == -2)
    return _per_query(r, (r.rank < cutoff) & unseen) / cutoff


KERNELS.check()
