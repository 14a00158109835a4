"""Scoring a run against qrels, the way `trec_eval -c` does, without a per-query Python loop.

An `Evaluator` indexes one qrels once (query numbers, judged (query, docid) pairs as sorted
int64 keys, relevant counts, ideal DCGs) and then scores many runs: each run is ranked in
trec_eval's order (`evaluator.io.order`; runs from `read_run` come in it already), its rows are
matched to judgments with two hash lookups and a binary search, and every metric is a
handful of `np.bincount` reductions over all queries at once (see `evaluator.engines.metrics`).

Where the compiled reader read both files, docids come as `io.texts.Texts` with 64-bit
hashes, and a run without tied scores is ranked and matched with numpy alone (pyarrow is
never imported): rows are matched by (query number, docid hash) with a binary search, and
each match is confirmed on the docid bytes, so a hash collision can never count a document
as judged. Tied scores are ordered by docid bytes as `read_run` orders them.

The test suite checks every metric, query by query, against trec_eval 10 built from its
source (%.17g output) on a seeded corpus, and against pytrec_eval (float32 scores, so only
on scores float32 holds exactly) on the MIRACL and Mr. TyDi qrels.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from ..io.order import position_in_query, trec_order
from ..io.texts import Texts, all_greater, same_values
from ..io.validation_fast import docid_hashes
from ..measures import GAIN_ALIASES, GAINS, Metric, parse_metrics
from ..records import JudgedColumns, Qrels, Run, SubsetResult
from .coverage import coverage
from .metrics import KERNELS, Ranked, gains
from .summary import summary

if TYPE_CHECKING:
    import pyarrow as pa

_QUERY_MIX = np.uint64(0x9E3779B97F4A7C15)  # spreads query numbers over the 64-bit key space
_NEAR_SHIFT = np.uint64(44)  # keys' top 20 bits: a 1 MB table filters the rows to search for


def grouped_descending(queries: np.ndarray, scores: np.ndarray) -> bool:
    """Whether rows come one block per query, each by score descending (ties aside)."""
    same = queries[1:] == queries[:-1]
    heads = np.sort(queries[np.r_[True, ~same]])  # not np.unique: its first call imports numpy.ma
    return not (np.any(heads[1:] == heads[:-1]) or np.any(same & (scores[1:] > scores[:-1])))


def tied(queries: np.ndarray, scores: np.ndarray) -> np.ndarray:
    """Rows i (of rows grouped by query) whose score equals row i + 1's in the same query."""
    return np.flatnonzero((queries[1:] == queries[:-1]) & (scores[1:] == scores[:-1]))


class JudgmentIndex:
    """The qrels as arrays: query i is `qids[i]`; a judged pair is the int64 key
    `i * len(docids) + docid number`, kept sorted with its label alongside. From the
    compiled reader (`hashed`), the key is the uint64 `docid hash + i * _QUERY_MIX` instead,
    each key unique, with `rows` (each key's judgment) to confirm a match on the docid."""

    def __init__(self, qrels: Qrels):
        columns = qrels.columns
        self.qids = columns.qids
        self.number = {qid: i for i, qid in enumerate(self.qids)}
        self._cache: dict[tuple[object, ...], np.ndarray] = {}
        self.hashed = isinstance(columns.docids, Texts) and columns.hashes is not None and self._index_hashes(columns)
        if self.hashed:
            return
        import pyarrow.compute as pc

        from ..io.columns import numbers

        encoded = pc.dictionary_encode(columns.docids if not isinstance(columns.docids, Texts)
                                       else columns.docids.arrow())
        self.docid_values = encoded.dictionary
        self.n_docs = max(len(self.docid_values), 1)
        owner = columns.owner
        key = owner * self.n_docs + numbers(encoded.indices).astype(np.int64)
        labels = columns.labels
        order = np.argsort(key, kind="stable")
        self.keys = key[order]
        self.labels = labels[order]
        self.owner = owner[order]

    def _index_hashes(self, columns: JudgedColumns) -> bool:
        """Index by (query, docid hash) keys; False when two judgments share a key (then
        the dictionary of docids is the index)."""
        assert columns.hashes is not None
        with np.errstate(over="ignore"):
            key = columns.hashes + columns.owner.astype(np.uint64) * _QUERY_MIX
        order = np.argsort(key)
        keys = key[order]
        if np.any(keys[1:] == keys[:-1]):
            return False
        self.keys, self.rows, self.docids = keys, order, columns.docids
        self.near = np.zeros(1 << (64 - int(_NEAR_SHIFT)), bool)  # which key prefixes are judged
        self.near[keys >> _NEAR_SHIFT] = True
        self.labels, self.owner = columns.labels[order], columns.owner[order]
        return True

    @property
    def n_queries(self) -> int:
        return len(self.qids)

    def relevant_counts(self, rel: int) -> np.ndarray:
        if ("rel", rel) not in self._cache:
            self._cache["rel", rel] = np.bincount(self.owner[self.labels >= rel],
                                                  minlength=self.n_queries).astype(np.float64)
        return self._cache["rel", rel]

    def nonrelevant_counts(self, rel: int) -> np.ndarray:
        """Judged non-relevant documents per query: labels from 0 up to `rel` (bpref's N)."""
        if ("nonrel", rel) not in self._cache:
            judged = (self.labels >= 0) & (self.labels < rel)
            self._cache["nonrel", rel] = np.bincount(self.owner[judged], minlength=self.n_queries).astype(np.float64)
        return self._cache["nonrel", rel]

    def ideal_dcg(self, gain: str, cutoff: int | None) -> np.ndarray:
        """Each query's best possible DCG within `cutoff` documents (None: all it has judged)."""
        if ("idcg", gain, cutoff) not in self._cache:
            self._cache["idcg", gain, cutoff] = self._ideal_dcg(gain, cutoff)
        return self._cache["idcg", gain, cutoff]

    def _ideal_dcg(self, gain: str, cutoff: int | None) -> np.ndarray:
        # best ordering of each query's judgments: by query, then gain descending
        g = gains(self.labels, gain)
        order = np.lexsort((-g, self.owner))
        owner, g = self.owner[order], g[order]
        starts = np.searchsorted(owner, np.arange(self.n_queries))
        rank = np.arange(len(owner)) - starts[owner]
        top = rank < (len(owner) if cutoff is None else cutoff)
        return np.bincount(owner[top], weights=g[top] / np.log2(rank[top] + 2.0),
                           minlength=self.n_queries)

    def lookup_hashed(self, qidx: np.ndarray, hashes: np.ndarray, docids: Texts,
                      rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """`lookup` on the hashed index: row i is (query `qidx[i]`, docid `docids[rows[i]]`
        of hash `hashes[i]`). The judgments' keys are unique, so a judged pair's key finds its
        own judgment; a key found is confirmed on the query and the docid bytes (another
        pair with the same key means this one is unjudged)."""
        label, judged = np.zeros(len(qidx), np.int64), np.zeros(len(qidx), bool)
        if not len(self.keys):
            return label, judged
        with np.errstate(over="ignore"):
            key = hashes + qidx.astype(np.uint64) * _QUERY_MIX
        maybe = np.flatnonzero(self.near[key >> _NEAR_SHIFT])  # a few % of the rows: the search is for those
        where = np.minimum(np.searchsorted(self.keys, key[maybe]), len(self.keys) - 1)
        hit = self.keys[where] == key[maybe]
        found, at = maybe[hit], where[hit]
        sure = (self.owner[at] == qidx[found]) & same_values(docids, rows[found], self.docids, self.rows[at])
        found, at = found[sure], at[sure]
        label[found], judged[found] = self.labels[at], True
        return label, judged

    def lookup(self, qidx: np.ndarray, docids: pa.Array) -> tuple[np.ndarray, np.ndarray]:
        """(label, judged) of each (query number, docid) row; unjudged rows get label 0."""
        if not len(self.keys):
            return np.zeros(len(qidx), np.int64), np.zeros(len(qidx), bool)
        import pyarrow.compute as pc

        from ..io.columns import numbers_or

        found = numbers_or(pc.index_in(docids, value_set=self.docid_values), -1)
        # only rows whose docid is judged somewhere need the binary search
        rows = np.flatnonzero(found >= 0)
        key = qidx[rows] * self.n_docs + found[rows]
        where = np.minimum(np.searchsorted(self.keys, key), len(self.keys) - 1)
        hit = self.keys[where] == key
        label, judged = np.zeros(len(qidx), np.int64), np.zeros(len(qidx), bool)
        label[rows[hit]], judged[rows[hit]] = self.labels[where[hit]], True
        return label, judged


class Evaluator:
    """Scores runs against one qrels. Build once per qrels, then call `score` per run.

    `relevance_level` is the label from which a document counts as relevant (binary
    metrics; nDCG uses graded labels). `gain` is the default nDCG gain, "label" (trec_eval)
    or "exp" (2^label - 1); a metric may override it (`nDCG(gain=exp)@10`). `depth` is how
    many documents of each query count: metrics without a cutoff (AP, RR) use it.
    """

    def __init__(self, qrels: Qrels, metrics: Sequence[str], *, relevance_level: int = 1,
                 gain: str = "label", depth: int = 100):
        gain = GAIN_ALIASES.get(gain, gain)
        if gain not in GAINS:
            raise ValueError(f"gain must be one of {', '.join(GAINS)}, not {gain!r}")
        if depth < 1:
            raise ValueError("depth must be at least 1")
        self.metrics: dict[str, Metric] = parse_metrics(metrics, depth)
        self.relevance_level = relevance_level
        self.gain = gain
        self.depth = depth
        self.index = JudgmentIndex(qrels)

    def rank(self, run: Run | None) -> Ranked:
        """Rank `run` as trec_eval does and match it to the judgments (rows of queries
        outside the qrels are dropped, as trec_eval drops them)."""
        index = self.index
        if run is None or not len(run):
            empty = np.zeros(0, np.int64)
            return Ranked(index.n_queries, self.depth, empty, empty, empty, empty.astype(bool), index)
        names, codes = run.query_codes()
        number = self.index.number
        qidx = np.fromiter((number.get(q, -1) for q in names), np.int64, len(names))[codes]
        scores = np.asarray(run.scores, dtype=np.float64)
        if index.hashed:
            return self._rank_hashed(run, qidx, scores)
        from ..io.columns import take

        docids = run.docid_array()
        inside = qidx >= 0
        if not inside.all():
            rows = np.flatnonzero(inside)
            qidx, scores, docids = qidx[rows], scores[rows], take(docids, rows)
        if not len(qidx):
            return self.rank(None)
        order, _, _ = trec_order(qidx, scores, docids)
        if np.any(order != np.arange(order.size)):  # read_run's runs come in that order already
            qidx, docids = qidx[order], take(docids, order)
        rank = position_in_query(qidx)
        keep = rank < self.depth
        if not keep.all():
            rows = np.flatnonzero(keep)
            qidx, rank, docids = qidx[rows], rank[rows], take(docids, rows)
        label, judged = index.lookup(qidx, docids)
        return Ranked(index.n_queries, self.depth, qidx, rank, label, judged, index)

    def _rank_hashed(self, run: Run, qidx: np.ndarray, scores: np.ndarray) -> Ranked:
        """`rank` on the hashed index: with numpy alone for a run from the compiled reader
        (tied rows are ordered by their docid bytes as the reader orders them). `rows`
        follows each kept row back to the run's own, so no docid is copied."""
        index = self.index
        docids = run.docid_column()
        if not isinstance(docids, Texts):  # a run not read by the compiled reader
            docids = Texts.from_arrow(docids)
        hashes = docid_hashes(docids) if run.hashes is None else run.hashes
        rows = np.flatnonzero(qidx >= 0)
        qidx, scores = qidx[rows], scores[rows]
        if not len(qidx):
            return self.rank(None)
        ordered = grouped_descending(qidx, scores)
        if not ordered:
            order = np.lexsort((-scores, qidx))  # ties aside, the docids would not change the order
            rows, qidx, scores = rows[order], qidx[order], scores[order]
        ties = tied(qidx, scores)
        # the reader's runs come in trec_eval's order already, ties by docid descending
        if ties.size and not (ordered and all_greater(docids, rows[ties], rows[ties + 1])):
            order, _, _ = trec_order(qidx, scores, docids.take(rows))
            rows, qidx = rows[order], qidx[order]
        rank = position_in_query(qidx)
        keep = np.flatnonzero(rank < self.depth)
        rows, qidx, rank = rows[keep], qidx[keep], rank[keep]
        label, judged = index.lookup_hashed(qidx, hashes[rows], docids, rows)
        return Ranked(index.n_queries, self.depth, qidx, rank, label, judged, index)

    def per_query_arrays(self, run: Run | None) -> dict[str, np.ndarray]:
        """Each metric's value for every qrels query, in qrels order (`self.index.qids`)."""
        ranked = self.rank(run)
        return {name: KERNELS[m.family](
                    ranked, m.cutoff,
                    rel=self.relevance_level if m.rel is None else m.rel, gain=m.gain or self.gain)
                for name, m in self.metrics.items()}

    def score(self, run: Run | None, *, subset: str = "", per_query: bool = True,
              name: str | None = None) -> SubsetResult:
        """Mean and per-query values of every metric; `run=None` scores an empty run (all 0).
        The mean is over every query in the qrels (trec_eval -c); with no queries it is 0.
        `per_query=False` leaves the per-query values out (a dict per metric and query is a
        tenth of the scoring time, and callers that show only means never read it).
        The result's warnings say how the run's queries met the judged ones (under `name`)."""
        values = self.per_query_arrays(run)
        qids = self.index.qids
        means = {name: summary(self.metrics[name], qids, v.tolist()) for name, v in values.items()}
        values_of = {name: dict(zip(qids, v.tolist(), strict=True)) for name, v in values.items()} if per_query else {}
        ran = set(run.query_codes()[0].tolist()) if run is not None and len(run) else set()
        return SubsetResult(subset=subset, means=means, per_query=values_of,
                            warnings=coverage(ran, qids, name or subset or "run"))

