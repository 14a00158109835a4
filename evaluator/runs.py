"""Reading, validating and writing TREC run files (`qid Q0 docid rank score tag`).

`read_run` makes one streaming pass: blocks of lines are checked and parsed (see
`validation_fast.py`), then the checks that span lines (depth, duplicate docids, ties,
rank order, missing queries) run vectorised over the parsed columns, and only the top
`keep_depth` documents of each query are kept, in trec_eval order.
"""
from __future__ import annotations

import os
import re
from collections.abc import Callable, Collection
from typing import TextIO

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .records import InputError, Run, ValidationReport
from .sources import DEFAULT_MAX_BYTES, GZIP_MAGIC, Source, iter_blocks, source_name
from .validation import BOM, MAX_PROBLEMS, LineRules, ProblemLog
from .validation_fast import Rows, rows_exact, rows_fast


def read_run(source: Source, *, name: str | None = None, topics: Collection[str] | None = None,
             docid_pattern: str | None = None, max_depth: int = 1000, keep_depth: int = 100,
             max_problems: int = MAX_PROBLEMS, progress: Callable[[int, int], None] | None = None,
             max_bytes: int = DEFAULT_MAX_BYTES) -> tuple[Run | None, ValidationReport]:
    """Validate and parse one TREC run file in one streaming pass.

    `source` is a path or a binary file object (e.g. a Django UploadedFile), plain or gzip
    (detected by magic bytes). Returns (None, report) when the report has errors. The Run
    keeps only the top `keep_depth` docs per query by trec_eval order (score descending,
    then docid descending), as `trec_eval -M keep_depth` scores. `progress(done, total)` is
    called after each block with bytes read and the file size (0 when unknown, e.g. gzip).
    """
    file = source_name(source, name)
    log = ProblemLog(file, max_problems)
    rules = LineRules(topics=None if topics is None else frozenset(topics),
                      docid_re=re.compile(docid_pattern.encode()) if docid_pattern else None)
    docid_regex = f"^(?:{docid_pattern})$" if docid_pattern else None
    codes: dict[str, int] = {}
    parts: list[Rows] = []
    line, done, total = 1, 0, _plain_size(source)
    try:
        for block in iter_blocks(source, file=file, max_bytes=max_bytes):
            done += len(block)
            if line == 1 and block.startswith(BOM):
                block = block[len(BOM):]
                log.warn("bom", "the file starts with a UTF-8 byte order mark; it was ignored", 1)
            rows = rows_fast(block, line, rules, codes, docid_regex)
            if rows is None:
                rows, crlf = rows_exact(block, line, rules, codes, log)
                if crlf:
                    log.warn("crlf", "lines end in CRLF (Windows); accepted", crlf)
            parts.append(rows)
            line += block.count(b"\n") + (not block.endswith(b"\n"))
            if progress:
                progress(done, total)
            if log.full:
                break
    except InputError as exc:
        for problem in exc.problems:
            log.error(problem.code, problem.message, problem.line, problem.column)
        return None, log.report(lines=line - 1)
    run, queries = _finish(parts, codes, rules, log, topics, max_depth, keep_depth)
    return (None if log.errors else run), log.report(lines=line - 1, queries=queries)


def _plain_size(source: Source) -> int:
    if isinstance(source, (str, os.PathLike)):
        with open(source, "rb") as handle:
            if handle.read(2) != GZIP_MAGIC:
                return os.fstat(handle.fileno()).st_size
    return 0


def _finish(parts: list[Rows], codes: dict[str, int], rules: LineRules, log: ProblemLog,
            topics: Collection[str] | None, max_depth: int, keep_depth: int) -> tuple[Run | None, int]:
    """The checks that span lines, then the top `keep_depth` rows per query."""
    q = np.concatenate([p.qcodes for p in parts]) if parts else np.zeros(0, np.int32)
    if q.size == 0:
        if not log.errors:
            log.error("empty-file", "the run is empty: it has no result lines")
        return None, 0
    scores = np.concatenate([p.scores for p in parts])
    ranks = np.concatenate([p.ranks for p in parts])
    lines = np.concatenate([p.lines for p in parts])
    docids = pa.chunked_array([p.docids for p in parts], pa.string()).combine_chunks()
    qids = np.array(list(codes), dtype=object)
    counts = np.bincount(q, minlength=len(qids))
    _check_depth(q, counts, qids, lines, log, max_depth)
    _check_duplicates(q, docids, qids, lines, log)
    order, tied_queries, first_tie = _trec_order(q, scores, docids)
    if tied_queries:
        log.warn("score-ties", f"{tied_queries} queries have documents with equal scores; they are ordered "
                 "by docid, descending, as trec_eval does", int(lines[first_tie]))
    _check_rank_order(q, scores, ranks, lines, order, log)
    queries = int(np.count_nonzero(counts))
    if topics is not None:
        missing = sorted(set(topics) - set(qids[counts > 0]))
        if missing:
            log.warn("missing-queries", f"{len(missing)} of {len(set(topics))} queries have no results and "
                     f"score 0 (e.g. {', '.join(missing[:5])})")
    if log.errors:
        return None, queries
    keep = order[_position_in_query(q[order]) < keep_depth]
    run = Run(qids=qids[q[keep]], docids=docids.take(pa.array(keep)).to_numpy(zero_copy_only=False),
              scores=scores[keep], tag=rules.tag or "")
    return run, queries


def _check_depth(q, counts, qids, lines, log: ProblemLog, max_depth: int) -> None:
    for code in np.flatnonzero(counts > max_depth)[: log.max_problems]:
        extra = np.flatnonzero(q == code)[max_depth]
        log.error("too-deep", f"query {qids[code]!r} has {counts[code]:,} documents; the limit is "
                  f"{max_depth:,} per query", int(lines[extra]), 1)


def _check_duplicates(q, docids: pa.Array, qids, lines, log: ProblemLog) -> None:
    """Same docid twice for one query: exact (qid code, docid code) keys sorted once."""
    encoded = pc.dictionary_encode(docids)
    doc = encoded.indices.to_numpy().astype(np.int64)
    keys = q.astype(np.int64) * len(encoded.dictionary) + doc
    ordered = np.sort(keys)
    repeated = np.unique(ordered[1:][ordered[1:] == ordered[:-1]])
    for key in repeated[: log.max_problems]:
        rows = np.flatnonzero(keys == key)
        docid = encoded.dictionary[int(doc[rows[0]])].as_py()
        for row in rows[1:]:
            log.error("duplicate-docid", f"docid {docid!r} appears again for query {qids[q[row]]!r} "
                      f"(first on line {lines[rows[0]]})", int(lines[row]), 3)


def _trec_order(q, scores, docids: pa.Array) -> tuple[np.ndarray, int, int]:
    """Row order grouped by query, score descending, docid descending (trec_eval's order);
    also how many queries have ties and the row of the first tie."""
    n = q.size
    same_q = q[1:] == q[:-1]
    grouped = np.count_nonzero(~same_q) + 1 == np.count_nonzero(np.bincount(q))
    if grouped and np.all(scores[1:][same_q] <= scores[:-1][same_q]):
        order = np.arange(n)  # already as written by nearly every retrieval toolkit
    else:
        order = np.lexsort((-scores, q))
    qs, ss = q[order], scores[order]
    tied = (qs[1:] == qs[:-1]) & (ss[1:] == ss[:-1])
    if not tied.any():
        return order, 0, 0
    member = np.zeros(n, dtype=bool)
    member[:-1] |= tied
    member[1:] |= tied
    starts = member & ~np.concatenate(([False], tied))
    group = np.cumsum(starts)
    at = np.flatnonzero(member)
    names = np.array(docids.take(pa.array(order[at])).to_pylist())
    _, rank = np.unique(names, return_inverse=True)
    order[at] = order[at][np.lexsort((-rank, group[at]))]
    tied_queries = np.unique(qs[at]).size
    return order, tied_queries, int(order[at].min())


def _check_rank_order(q, scores, ranks, lines, order, log: ProblemLog) -> None:
    qs, ss, rs = q[order], scores[order], ranks[order]
    wrong = np.flatnonzero((qs[1:] == qs[:-1]) & (ss[1:] < ss[:-1]) & (rs[1:] <= rs[:-1]))
    if wrong.size:
        hi, lo = order[wrong[0]], order[wrong[0] + 1]
        log.warn("rank-order", f"the rank column disagrees with the scores (line {lines[hi]} has rank {ranks[hi]} "
                 f"but a higher score than line {lines[lo]} with rank {ranks[lo]}); documents are ordered by "
                 "score, as trec_eval does", int(lines[hi]), 4)


def _position_in_query(qs: np.ndarray) -> np.ndarray:
    """0-based position of each row within its query's block (rows grouped by query)."""
    n = qs.size
    starts = np.flatnonzero(np.concatenate(([True], qs[1:] != qs[:-1])))
    return np.arange(n) - np.repeat(starts, np.diff(np.append(starts, n)))


def write_run(run: Run, handle: TextIO, *, tag: str | None = None) -> None:
    """Write valid TREC lines, in trec_eval order with ranks 1..n per query."""
    docids = pa.array(run.docids, pa.string())
    codes: dict[str, int] = {}
    q = np.array([codes.setdefault(x, len(codes)) for x in run.qids], dtype=np.int64)
    order, _, _ = _trec_order(q, np.asarray(run.scores, dtype=np.float64), docids)
    positions = _position_in_query(q[order]) + 1
    label = tag or run.tag or "run"
    handle.writelines(f"{run.qids[i]} Q0 {run.docids[i]} {p} {float(run.scores[i])!r} {label}\n"
                      for i, p in zip(order.tolist(), positions.tolist()))
