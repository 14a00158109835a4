"""The pure-Python engine for small collections: no numpy, no pyarrow.

Importing numpy and pyarrow costs a process more than trec_eval takes to score 1,000
queries (docs/benchmarks.md). A plain (not gzip) run of at most small_run_bytes() whose every line is
plainly valid (six single-space-separated ASCII fields, one tag, integer ranks, finite
decimal scores, no duplicate, no tie, ranks agreeing with scores, within the depth limit)
is read and scored here; anything else, this module declines (returns None) and the
vectorised engine reads the file, saying what is wrong where. So problems are only ever
reported by one reader, and when this one accepts a file it yields what the other would:
`tests/evaluator/test_small_engine.py` feeds both the same random and malformed files.

The metrics are those of `evaluator.engines.metrics`, per query in plain Python, with trec_eval's
definitions (see that module's docstrings and docs/evaluator.md): one small kernel per
measure of `evaluator.measures` that lists the SMALL engine.
"""
from __future__ import annotations

import math
import re
from collections.abc import Callable, Collection
from itertools import chain, compress, groupby
from operator import gt, lt
from types import ModuleType

from ..io import compiled
from ..io.qrels import read_qrels
from ..io.sources import GZIP_MAGIC, plain_file_head
from ..io.topics import read_topics
from ..io.validation import INT64_MAX, MAX_FIELD_BYTES, TAG_RE, ProblemLog, warn_missing_queries
from ..measures import SMALL, Kernels, parse_metric
from ..records import InputError, Qrels, SubsetResult, ValidationReport
from .coverage import coverage
from .jobs import Job, Outcome, Scoring
from .summary import summary

# The largest run (or runs, in all) read here: past it the vectorised engine, with its second
# reading thread and per-language processes, wins in wall time and peak memory (measured with
# and without the compiled reader: docs/benchmarks.md, the small engine's cut-off).
SMALL_RUN_BYTES = 16 << 20  # ~500k lines, with the compiled reader
PURE_RUN_BYTES = 8 << 20  # ~250k lines, without it


def small_run_bytes() -> int:
    """The cut-off for the reader in use (the compiled one reads twice as much in the time)."""
    return SMALL_RUN_BYTES if compiled.COMPILED else PURE_RUN_BYTES


def is_small(job: Job) -> bool:
    """Whether the job's run is a plain file small enough for this engine."""
    head = plain_file_head(job.run) if job.run is not None else None  # no run, unreadable or a pipe: the other engine
    return head is not None and head[0] != GZIP_MAGIC and head[1] <= small_run_bytes()


def score_small_job(job: Job, *, scoring: Scoring) -> Outcome | None:
    """The job's outcome, or None when the vectorised engine must take it."""
    if job.qrels is None or job.run is None or job.judged or scoring.documents or not is_small(job):
        return None
    try:
        qrels = read_qrels(job.qrels, strict=scoring.strict)
        topics = read_topics(job.topics) if job.topics else None
    except InputError:
        return None  # the other engine reports it with the run's problems
    read = read_plain_run(job.run, topics=topics, docid_pattern=scoring.docid_pattern,
                          max_depth=scoring.max_depth, strict=scoring.strict)
    if read is None:
        return None
    ranked, report = read
    result = score_ranked(qrels, ranked, scoring, subset=job.subset, name=job.run)
    return Outcome(job.subset, report=report, result=result, qrels_warnings=qrels.warnings)


def read_plain_run(path: str, *, topics: Collection[str] | None, docid_pattern: str | None, max_depth: int,
                   strict: bool) -> tuple[dict[str, list[bytes]], ValidationReport] | None:
    """{qid: its docids in trec_eval order} and the report, or None to decline. The lines are
    split by the compiled reader where it is built (evaluator/io/_lines.c), else by
    whole-file bytes operations (each a C loop over the file, no Python per line); what is
    left per query is a few list operations."""
    with open(path, "rb") as handle:
        data = handle.read()
    # A NUL byte is refused by the exact reader ("line contains a NUL byte"); bytes.split()
    # and the C reader's fallback would take it inside a docid, so such a file is declined.
    if not data or not data.isascii() or data.startswith((b" ", b"#")) or b"\n#" in data or b"\x00" in data:
        return None
    reader = compiled.COMPILED
    read = (reader and _compiled_ranked(data, reader, max_depth)) or _split_ranked(data, max_depth)
    if read is None:
        return None
    ranked, lines, tag = read
    if strict and not TAG_RE.fullmatch(tag):
        return None
    if docid_pattern and not re.fullmatch(rb"(?:(?:" + docid_pattern.encode() + rb")\n)*",
                                          b"\n".join(chain.from_iterable(ranked.values())) + b"\n"):
        return None
    if topics is not None and not set(ranked) <= set(topics):
        return None
    log = ProblemLog(path)
    if topics is not None:
        warn_missing_queries(log, topics, ranked)
    return ranked, log.report(lines=lines, queries=len(ranked))


Columns = tuple[list[str], list[bytes], list[float], "list[int] | list[bytes]", bytes]  # qid, docid, score, rank, tag
Ranked = tuple[dict[str, list[bytes]], int, bytes]  # {qid: docids in order}, lines, tag


def _compiled_ranked(data: bytes, reader: ModuleType, max_depth: int) -> Ranked | None:
    """The compiled reader's reading of a run whose every line is plainly valid (six fields
    of 1-100 ASCII bytes between single spaces, one tag, ranks of up to 18 digits, finite
    decimal scores) and whose queries are as `_ranked` takes them, grouped in C
    (`group_ranked`); None when it declines (then the bytes operations try)."""
    parsed = reader.parse_run(data, False)
    if parsed is None:
        return None
    names, owner, offsets, text, ranks, scores, hashes, tag, lines = parsed
    ranked = reader.group_ranked(names, owner, offsets, text, ranks, scores, hashes, max_depth)
    return None if ranked is None else (ranked, lines, tag.encode())


def _split_ranked(data: bytes, max_depth: int) -> Ranked | None:
    """The bytes operations' reading (`_split_columns`, `_ranked`), where the compiled reader
    is not built or declined."""
    columns = _split_columns(data)
    if columns is None:
        return None
    qids, docids, values, ranks, tag = columns
    if not -math.inf < min(values) <= max(values) < math.inf:
        return None
    ranked = _ranked(qids, docids, values, ranks, max_depth)
    return None if ranked is None else (ranked, len(qids), tag)


def _split_columns(data: bytes) -> Columns | None:
    """The columns of a run whose every line is five single spaces between six fields of
    at most 100 bytes, one tag, decimal scores; None to decline."""
    if not data.endswith(b"\n"):
        data += b"\n"
    lines = data.count(b"\n")
    # every line five single spaces then its end (no other whitespace), and six non-empty fields
    if any(space in data for space in _OTHER_SPACES) or data.translate(None, _NOT_SEPARATORS) != _LINE_SEPARATORS * lines:
        return None
    fields = data.split()
    if len(fields) != 6 * lines or b"x" * (MAX_FIELD_BYTES + 1) in data.translate(_FIELD_BYTES):
        return None  # an empty field (two spaces in a row, one leading or trailing); one over 100 bytes
    qids, docids, ranks, scores, tags = fields[0::6], fields[2::6], fields[3::6], fields[4::6], fields[5::6]
    if tags.count(tags[0]) != lines:
        return None
    # Only these bytes, then float() accepts exactly what SCORE_RE does (no letters: no nan,
    # inf or hex; no underscores), and says so by raising; a finite one is below inf.
    if b"".join(scores).translate(None, b"0123456789.eE+-"):
        return None
    try:
        values = list(map(float, scores))
    except ValueError:
        return None
    return list(map(bytes.decode, qids)), docids, values, ranks, tags[0]


_OTHER_SPACES = (b"\t", b"\r", b"\x0b", b"\x0c")  # what bytes.split() (and trec_eval) also split on
_NOT_SEPARATORS = bytes(set(range(256)) - set(b" \n"))
_LINE_SEPARATORS = b"     \n"
_FIELD_BYTES = bytes.maketrans(_NOT_SEPARATORS, b"x" * len(_NOT_SEPARATORS))  # a field's bytes as x's


def _ranked(qids: list[str], docids: list[bytes], scores: list[float], ranks: list[int] | list[bytes],
            max_depth: int) -> dict[str, list[bytes]] | None:
    """Each query's docids in trec_eval order; None (decline) when a query's
    lines are not together in strictly falling scores with rising ranks (ties, a rank column
    that disagrees: the other engine warns), a docid repeats, or a query is past the depth
    limit. Runs are written that way, so the check compares neighbours; nothing is sorted."""
    out: dict[str, list[bytes]] = {}
    counting: list[object] = []  # 1, 2, 3...: the rank column of most runs (as the column's type)
    start = 0
    for qid, group in groupby(qids):
        end = start + len(list(group))
        n, block, docs = end - start, scores[start:end], docids[start:end]
        if qid in out or n > max_depth or len(set(docs)) != n or not all(map(gt, block, block[1:])):
            return None
        if len(counting) < n:
            write = (lambda rank: b"%d" % rank) if isinstance(ranks[0], bytes) else int
            counting = [write(rank) for rank in range(1, max(n, 2 * len(counting)) + 1)]
        if ranks[start:end] != counting[:n] and not _rising(ranks[start:end]):
            return None
        out[qid] = docs
        start = end
    return out


def _rising(ranks: list[int] | list[bytes]) -> bool:
    """Whether a query's ranks are 64-bit integers as RANK_RE writes them (only these bytes:
    int() then accepts exactly RANK_RE's shape), each above the one before."""
    if isinstance(ranks[0], bytes):
        if b"".join(ranks).translate(None, b"0123456789+-"):
            return False
        try:
            ranks = list(map(int, ranks))
        except ValueError:
            return False
    return -INT64_MAX <= min(ranks) and max(ranks) <= INT64_MAX and all(map(lt, ranks, ranks[1:]))


def score_ranked(qrels: Qrels, ranked: dict[str, list[bytes]], scoring: Scoring, *,
                 subset: str, name: str) -> SubsetResult:
    """Every metric for every judged query (0 where the run has none), as `Evaluator.score`.
    Only where the judged documents stand is looked up (a dict per query, in C); the kernels
    then walk those few positions, not every retrieved document."""
    metrics = {metric: parse_metric(metric) for metric in scoring.metrics}
    judgments = qrels.judgments
    per_query: dict[str, dict[str, float]] = {metric: {} for metric in metrics}
    for qid, judged in judgments.items():
        docs = ranked.get(qid, [])[:scoring.depth]
        found: list[tuple[int, int]] = []
        if docs:
            labels = {docid.encode(): label for docid, label in judged.items()}
            found = [(i, labels[docs[i]]) for i in compress(range(len(docs)), map(labels.__contains__, docs))]
        for metric, m in metrics.items():
            rel = scoring.relevance_level if m.rel is None else m.rel
            k = m.cutoff or scoring.depth
            top = found if not found or found[-1][0] < k else [(i, label) for i, label in found if i < k]
            per_query[metric][qid] = KERNELS[m.family](Query(top, min(len(docs), k), judged, rel,
                                                              m.gain or scoring.gain, m.cutoff, k))
    means = {metric: summary(m, list(per_query[metric]), per_query[metric].values()) for metric, m in metrics.items()}
    return SubsetResult(subset=subset, means=means, per_query=per_query if scoring.per_query else {},
                        warnings=coverage(set(ranked), list(judgments), name))


class Query:
    """One query as a small kernel sees it for one metric: where its judged documents stand
    in the top k (0-based, in order) with their labels, how many documents the top k
    holds, its judgments, and how many of them are relevant."""

    __slots__ = ("found", "retrieved", "judged", "rel", "gain", "cutoff", "k", "relevant")

    def __init__(self, found: list[tuple[int, int]], retrieved: int, judged: dict[str, int], rel: int, gain: str,
                 cutoff: int | None, k: int):
        self.found, self.retrieved, self.judged, self.rel = found, retrieved, judged, rel
        self.gain, self.cutoff, self.k = gain, cutoff, k  # k: the cutoff, or the depth without one
        self.relevant = sum(1 for label in judged.values() if label >= rel)

    @property
    def hits(self) -> list[int]:
        """Positions of the relevant documents in the top k."""
        return [i for i, label in self.found if label >= self.rel]


SmallKernel = Callable[[Query], float]
KERNELS: Kernels[SmallKernel] = Kernels(SMALL)


def _gain(label: int, gain: str) -> float:
    if label <= 0:
        return 0.0
    return float(label) if gain == "label" else 2.0 ** label - 1.0


@KERNELS.of("nDCG")
def _ndcg(q: Query) -> float:
    # unjudged documents gain 0, and adding 0.0 changes no float sum: the judged ones suffice
    dcg = sum(_gain(label, q.gain) / math.log2(i + 2) for i, label in q.found)
    # the gain grows with the label: the best labels first give the best gains first
    ideal = sorted(q.judged.values(), reverse=True)[:q.cutoff]
    best = sum(_gain(label, q.gain) / math.log2(i + 2) for i, label in enumerate(ideal))
    return dcg / best if best > 0 else 0.0


@KERNELS.of("P")
def _precision(q: Query) -> float:
    return len(q.hits) / q.k


@KERNELS.of("Judged")
def _judged(q: Query) -> float:
    return len(q.found) / q.k


@KERNELS.of("Unjudged")
def _unjudged(q: Query) -> float:
    """trec_eval's unj: -1 and -2 are its "not judged" labels."""
    return (q.retrieved - len(q.found) + sum(label in (-1, -2) for _, label in q.found)) / q.k


@KERNELS.of("Success")
def _success(q: Query) -> float:
    return 1.0 if q.hits else 0.0


@KERNELS.of("RR")
def _reciprocal_rank(q: Query) -> float:
    return next((1.0 / (i + 1) for i in q.hits), 0.0)


@KERNELS.of("R")
def _recall(q: Query) -> float:
    return len(q.hits) / q.relevant if q.relevant else 0.0


@KERNELS.of("NumRelRet")
def _relevant_retrieved(q: Query) -> float:
    return float(len(q.hits))


@KERNELS.of("Rprec")
def _r_precision(q: Query) -> float:
    return sum(1 for i in q.hits if i < q.relevant) / q.relevant if q.relevant else 0.0


@KERNELS.of("AP")
def _average_precision(q: Query) -> float:
    if not q.relevant:
        return 0.0
    total = 0.0
    for found, i in enumerate(q.hits, start=1):
        total += found / (i + 1)
    return total / q.relevant


@KERNELS.of("Bpref")
def _bpref(q: Query) -> float:
    """bpref as trec_eval computes it (see evaluator.engines.metrics.bpref)."""
    if not q.relevant:
        return 0.0
    cap = min(sum(1 for label in q.judged.values() if 0 <= label < q.rel), q.relevant)
    nonrel, total = 0, 0.0
    for _, label in q.found:
        if label >= q.rel:
            total += 1.0 - min(nonrel, q.relevant) / cap if nonrel > 0 else 1.0
        elif 0 <= label:
            nonrel += 1
    return total / q.relevant


KERNELS.check()
