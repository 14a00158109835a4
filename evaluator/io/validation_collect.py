"""The checks that span the lines of a run, and the cut to the top k per query.

Blocks of parsed rows (`validation_fast.Rows`) arrive one at a time. Each block is cut at
once to its own top `keep_depth` rows per query in trec_eval order; the file's top k of a
query is always among the blocks' top k, so a depth-1000 run never holds more than its
scored rows plus, for every row, 16 bytes of bookkeeping (duplicate key, query, line) and
its docid bytes (to confirm a suspected duplicate exactly). Docids are `texts.Texts` from
the compiled reader (no pyarrow unless scores tie) and Arrow arrays from the other.
"""
from __future__ import annotations

from collections.abc import Collection
from typing import Any

import numpy as np

from ..records import Run
from . import compiled
from .order import position_in_query, trec_order
from .texts import Texts, join, take_rows, whole
from .validation import ProblemLog, warn_missing_queries
from .validation_fast import Rows

_QUERY_MIX = np.uint64(0x9E3779B97F4A7C15)  # spreads query codes over the 64-bit key space
_SLICE_ROWS = 4096  # repeated rows whose docids are fetched at once when reporting duplicates


def _top(rows: Rows, k: int) -> Rows:
    """The rows scoring at least the k-th score of their query in this block: a superset of
    the block's top k (ties at the cut stay in, so no docid needs sorting here)."""
    q, scores = rows.qcodes, rows.scores
    if not q.size or np.bincount(q).max() <= k:
        return rows
    sorted_q = bool(np.all(q[1:] >= q[:-1]))
    order = np.arange(q.size) if sorted_q else np.lexsort((-scores, q))
    qs = q[order]
    starts = np.flatnonzero(np.concatenate(([True], qs[1:] != qs[:-1])))
    sizes = np.diff(np.append(starts, q.size))
    if sorted_q:  # rows of a query are together; are they by descending score?
        ss = scores[order]
        if not np.all(ss[1:][qs[1:] == qs[:-1]] <= ss[:-1][qs[1:] == qs[:-1]]):
            order = np.lexsort((-scores, q))
            qs = q[order]
    ss = scores[order]
    kth = np.where(sizes > k, ss[np.minimum(starts + k - 1, q.size - 1)], -np.inf)
    keep = order[ss >= np.repeat(kth, sizes)]
    if keep.size > 1 and not np.all(keep[1:] > keep[:-1]):
        keep.sort()  # back in file order
    return Rows(q[keep], take_rows(rows.docids, keep), rows.ranks[keep], scores[keep],
                rows.lines[keep], rows.hashes[keep])


def _encode_runs(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(value, length) of each run of equal values; `np.repeat(*runs)` gives them back."""
    if not values.size:
        return values, np.zeros(0, np.int64)
    starts = np.flatnonzero(np.concatenate(([True], values[1:] != values[:-1])))
    return values[starts], np.diff(np.append(starts, values.size))


class RunCollector:
    """Gathers one file's blocks; `finish` runs the cross-line checks and builds the Run."""

    def __init__(self, keep_depth: int, max_depth: int, log: ProblemLog):
        self.keep_depth, self.max_depth, self.log = keep_depth, max_depth, log
        self.counts = np.zeros(0, np.int64)
        self.q: list[tuple[np.ndarray, np.ndarray]] = []
        self.keys: list[np.ndarray] = []
        self.lines: list[tuple[np.ndarray, np.ndarray]] = []
        self.docids: list[Any] = []
        self.kept: list[Rows] = []
        self.too_deep: list[tuple[int, int]] = []  # (query code, line of its first row past max_depth)

    def add(self, rows: Rows) -> None:
        with np.errstate(over="ignore"):
            self.keys.append(rows.hashes + rows.qcodes.astype(np.uint64) * _QUERY_MIX)
        block = np.bincount(rows.qcodes)
        if block.size > self.counts.size:
            self.counts = np.concatenate((self.counts, np.zeros(block.size - self.counts.size, np.int64)))
        before = self.counts[:block.size].copy()
        self.counts[:block.size] += block
        self._check_depth(rows, before)
        # kept run-length encoded (a few numbers per query): needed only to report a problem
        self.q.append(_encode_runs(rows.qcodes))
        self.lines.append(_encode_runs(rows.lines - np.arange(rows.lines.size)))
        self.docids.append(rows.docids)
        self.kept.append(_top(rows, self.keep_depth))

    def finish(self, qids: list[str], log: ProblemLog, *, topics: Collection[str] | None, tag: str) -> tuple[Run | None, int]:
        if not self.counts.sum():
            if not log.errors:
                log.error("empty-file", "the run is empty: it has no result lines")
            return None, 0
        names = np.array(qids, dtype=object)
        counts = np.concatenate((self.counts, np.zeros(len(names) - self.counts.size, np.int64)))
        for code, line in self.too_deep:
            log.error("too-deep", f"query {names[code]!r} has more than {self.max_depth:,} documents; the limit "
                      f"is {self.max_depth:,} per query (reading stopped there)", line, 1)
        self._check_duplicates(names, log)
        queries = int(np.count_nonzero(counts))
        if topics is not None:
            warn_missing_queries(log, topics, names[counts > 0].tolist())
        kq = np.concatenate([k.qcodes for k in self.kept])
        scores = np.concatenate([k.scores for k in self.kept])
        ranks = np.concatenate([k.ranks for k in self.kept])
        klines = np.concatenate([k.lines for k in self.kept])
        docids = join([k.docids for k in self.kept])
        # the scorer's hashed index uses them; the Arrow path (docids not Texts) does not
        hashes = np.concatenate([k.hashes for k in self.kept]) if isinstance(docids, Texts) else None
        order, tied_queries, first_tie = trec_order(kq, scores, docids)
        if tied_queries:
            log.warn("score-ties", f"{tied_queries} queries have scored documents with equal scores; they are "
                     "ordered by docid, descending, as trec_eval does", int(klines[first_tie]))
        _check_rank_order(kq, scores, ranks, klines, order, log)
        if log.errors:
            return None, queries
        keep = order[position_in_query(kq[order]) < self.keep_depth]
        unmoved = keep.size == kq.size and bool(np.all(keep[1:] > keep[:-1]))  # no copy needed
        run = Run.from_columns(names=names, codes=kq if unmoved else kq[keep],
                               docids=whole(docids if unmoved else take_rows(docids, keep)),
                               scores=scores if unmoved else scores[keep], tag=tag,
                               hashes=hashes if unmoved or hashes is None else hashes[keep])
        return run, queries

    def _rows(self) -> tuple[np.ndarray, np.ndarray]:
        """Query code and line of every row, in file order (made only to report a problem)."""
        q = np.concatenate([np.repeat(*runs) for runs in self.q])
        lines = np.concatenate([np.repeat(*runs) + np.arange(runs[1].sum()) for runs in self.lines])
        return q, lines

    def _check_depth(self, rows: Rows, before: np.ndarray) -> None:
        """Note each query this block takes past the depth limit, at the line that does, and
        stop reading: a file that deep is refused, whatever else it holds (a gzip of one
        line repeated a billion times is refused after one block, not after a billion lines)."""
        deep = np.flatnonzero((self.counts[:before.size] > self.max_depth) & (before <= self.max_depth))
        for code in deep[: self.log.max_problems].tolist():
            row = np.flatnonzero(rows.qcodes == code)[self.max_depth - before[code]]
            self.too_deep.append((code, int(rows.lines[row])))
        if deep.size:
            self.log.stop()

    def _check_duplicates(self, names: np.ndarray, log: ProblemLog) -> None:
        """Same docid twice for one query: (query, docid hash) keys sorted once; keys that
        repeat are confirmed on the docid strings."""
        ordered = np.concatenate(self.keys)
        if compiled.COMPILED is not None and not compiled.COMPILED.any_repeated(ordered):
            return  # the common case found in one linear pass; the sort below is what finds the lines
        ordered.sort()  # in place: one copy of the keys, not two
        repeated = ordered[1:][ordered[1:] == ordered[:-1]]
        del ordered
        if not repeated.size:
            return
        q, lines = self._rows()
        rows = np.flatnonzero(np.isin(np.concatenate(self.keys), repeated))  # file order
        first: dict[tuple[int, str], int] = {}
        every = join(self.docids)
        # In slices, and only until the log is full: a file of one line repeated has every
        # row in `rows`, and only the first 25 repeats are ever reported.
        for start in range(0, rows.size, _SLICE_ROWS):
            part = rows[start:start + _SLICE_ROWS]
            docids = take_rows(every, part).to_pylist()
            for row, docid in zip(part.tolist(), docids, strict=True):
                seen = first.setdefault((int(q[row]), docid), row)
                if seen != row:
                    log.error("duplicate-docid", f"docid {docid!r} appears again for query {names[q[row]]!r} "
                              f"(first on line {lines[seen]})", int(lines[row]), 3)
                    if log.full:
                        return


def _check_rank_order(q: np.ndarray, scores: np.ndarray, ranks: np.ndarray, lines: np.ndarray, order: np.ndarray,
                      log: ProblemLog) -> None:
    qs, ss, rs = q[order], scores[order], ranks[order]
    wrong = np.flatnonzero((qs[1:] == qs[:-1]) & (ss[1:] < ss[:-1]) & (rs[1:] <= rs[:-1]))
    if wrong.size:
        hi, lo = order[wrong[0]], order[wrong[0] + 1]
        log.warn("rank-order", f"the rank column disagrees with the scores (line {lines[hi]} has rank {ranks[hi]} "
                 f"but a higher score than line {lines[lo]} with rank {ranks[lo]}); documents are ordered by "
                 "score, as trec_eval does", int(lines[hi]), 4)
