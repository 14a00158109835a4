"""The pure-Python engine for small collections: no numpy, no pyarrow.

Importing numpy and pyarrow costs a process ~0.35 s, three times what trec_eval takes to
score 1,000 queries. A plain (not gzip) run of at most SMALL_RUN_BYTES whose every line is
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
import os
import re
from collections.abc import Callable, Collection
from dataclasses import dataclass
from itertools import compress
from operator import gt, lt, ne

from ..io.qrels import read_qrels
from ..io.sources import GZIP_MAGIC
from ..io.topics import read_topics
from ..io.validation import MAX_FIELD_BYTES, TAG_RE, ProblemLog, warn_missing_queries
from ..measures import SMALL, Kernels, Metric, parse_metric
from ..records import InputError, Qrels, SubsetResult, ValidationReport
from .coverage import coverage
from .jobs import Job, Outcome, Scoring
from .summary import summary

SMALL_RUN_BYTES = 8 << 20  # ~250k lines: about trec_eval's time at this size, without the imports


def is_small(job: Job) -> bool:
    """Whether the job's run is a plain file small enough for this engine."""
    try:
        with open(job.run, "rb") as handle:  # type: ignore[arg-type]
            return handle.read(2) != GZIP_MAGIC and os.fstat(handle.fileno()).st_size <= SMALL_RUN_BYTES
    except (OSError, TypeError):
        return False  # no run, or unreadable: the other engine says why


def score_small_job(job: Job, *, scoring: Scoring) -> Outcome | None:
    """The job's outcome, or None when the vectorised engine must take it."""
    if job.qrels is None or job.run is None or not is_small(job):
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
                   strict: bool) -> tuple[dict[str, list[tuple[str, float]]], ValidationReport] | None:
    """{qid: [(docid, score), ...] in trec_eval order} and the report, or None to decline."""
    with open(path, "rb") as handle:
        data = handle.read()
    if not data or not data.isascii() or data.startswith((b" ", b"#")) or b"\n#" in data:
        return None
    if not data.endswith(b"\n"):
        data += b"\n"
    lines = data.count(b"\n")
    fields = data.split()
    if (len(fields) != 6 * lines or data.count(b" ") != 5 * lines or b"  " in data or b" \n" in data
            or b"\n " in data or len(data.translate(None, b"\t\r\x0b\x0c")) != len(data)):
        return None  # not six fields split by single spaces on every line
    qids, docids, ranks, scores, tags = fields[0::6], fields[2::6], fields[3::6], fields[4::6], fields[5::6]
    if max(max(map(len, column)) for column in (qids, fields[1::6], docids, scores, tags)) > MAX_FIELD_BYTES or \
            max(map(len, ranks)) > 18:  # 18 digits: within 64 bits
        return None
    # Only these bytes, then int() and float() accept exactly what RANK_RE and SCORE_RE do
    # (no letters: no nan, inf or hex; no underscores), and say so by raising.
    if b"".join(ranks).translate(None, b"0123456789+-") or b"".join(scores).translate(None, b"0123456789.eE+-"):
        return None
    try:
        values, rank_values = list(map(float, scores)), list(map(int, ranks))
    except ValueError:
        return None
    if tags.count(tags[0]) != lines or (strict and not TAG_RE.fullmatch(tags[0])):
        return None
    if docid_pattern and not re.fullmatch(rb"(?:(?:" + docid_pattern.encode() + rb")\n)*", b"\n".join(docids) + b"\n"):
        return None
    if not all(map(math.isfinite, values)):
        return None
    ranked = _ranked(qids, docids, values, rank_values, max_depth)
    if ranked is None or topics is not None and not set(ranked) <= set(topics):
        return None
    log = ProblemLog(path)
    if topics is not None:
        warn_missing_queries(log, topics, ranked)
    return ranked, log.report(lines=lines, queries=len(ranked))


def _ranked(qids: list[bytes], docids: list[bytes], scores: list[float], ranks: list[int],
            max_depth: int) -> dict[str, list[tuple[str, float]]] | None:
    """Each query's documents in trec_eval order; None (decline) when a query's lines are
    not together in strictly falling scores with rising ranks (ties, a rank column that
    disagrees: the other engine warns), a docid repeats, or a query is past the depth
    limit. Runs are written that way, so the check compares neighbours; nothing is sorted."""
    out: dict[str, list[tuple[str, float]]] = {}
    cuts = [0, *compress(range(1, len(qids)), map(ne, qids, qids[1:])), len(qids)]  # where the qid changes
    for start, end in zip(cuts, cuts[1:], strict=False):
        qid = qids[start].decode()
        block, order, docs = scores[start:end], ranks[start:end], docids[start:end]
        if qid in out or end - start > max_depth or len(set(docs)) != end - start:
            return None
        if not (all(map(gt, block, block[1:])) and all(map(lt, order, order[1:]))):
            return None
        out[qid] = list(zip(map(bytes.decode, docs), block, strict=True))
    return out


def score_ranked(qrels: Qrels, ranked: dict[str, list[tuple[str, float]]], scoring: Scoring, *,
                 subset: str, name: str) -> SubsetResult:
    """Every metric for every judged query (0 where the run has none), as `Evaluator.score`."""
    metrics = {metric: parse_metric(metric) for metric in scoring.metrics}
    judgments = qrels.judgments
    per_query: dict[str, dict[str, float]] = {metric: {} for metric in metrics}
    for qid, judged in judgments.items():
        labels = [judged.get(docid) for docid, _ in ranked.get(qid, ())[:scoring.depth]]
        for metric, m in metrics.items():
            rel = scoring.relevance_level if m.rel is None else m.rel
            per_query[metric][qid] = _value(m, labels, judged, rel, m.gain or scoring.gain, scoring.depth)
    means = {metric: summary(m, list(per_query[metric]), per_query[metric].values()) for metric, m in metrics.items()}
    return SubsetResult(subset=subset, means=means, per_query=per_query if scoring.per_query else {},
                        warnings=coverage(set(ranked), list(judgments), name))


@dataclass(frozen=True, slots=True)
class Query:
    """One query as a small kernel sees it for one metric: the labels of its top k (None:
    unjudged), which of them are relevant, its judgments and how many are relevant."""

    top: list[int | None]
    hits: list[bool]
    judged: dict[str, int]
    rel: int
    gain: str
    cutoff: int | None
    k: int  # the cutoff, or the depth without one
    relevant: int


SmallKernel = Callable[[Query], float]
KERNELS: Kernels[SmallKernel] = Kernels(SMALL)


def _value(m: Metric, labels: list[int | None], judged: dict[str, int], rel: int, gain: str, depth: int) -> float:
    """One query's value of one metric; `labels` are the ranked documents' labels (None:
    unjudged), already cut at the depth."""
    k = m.cutoff or depth
    top = labels[:k]
    hits = [label is not None and label >= rel for label in top]
    relevant = sum(1 for label in judged.values() if label >= rel)
    return KERNELS[m.family](Query(top, hits, judged, rel, gain, m.cutoff, k, relevant))


def _gain(label: int | None, gain: str) -> float:
    if label is None or label <= 0:
        return 0.0
    return float(label) if gain == "label" else 2.0 ** label - 1.0


@KERNELS.of("nDCG")
def _ndcg(q: Query) -> float:
    dcg = sum(_gain(label, q.gain) / math.log2(i + 2) for i, label in enumerate(q.top))
    ideal = sorted((_gain(label, q.gain) for label in q.judged.values()), reverse=True)[:q.cutoff]
    best = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
    return dcg / best if best > 0 else 0.0


@KERNELS.of("P")
def _precision(q: Query) -> float:
    return sum(q.hits) / q.k


@KERNELS.of("Judged")
def _judged(q: Query) -> float:
    return sum(label is not None for label in q.top) / q.k


@KERNELS.of("Unjudged")
def _unjudged(q: Query) -> float:
    """trec_eval's unj: -1 and -2 are its "not judged" labels."""
    return sum(label is None or label in (-1, -2) for label in q.top) / q.k


@KERNELS.of("Success")
def _success(q: Query) -> float:
    return 1.0 if any(q.hits) else 0.0


@KERNELS.of("RR")
def _reciprocal_rank(q: Query) -> float:
    return next((1.0 / (i + 1) for i, hit in enumerate(q.hits) if hit), 0.0)


@KERNELS.of("R")
def _recall(q: Query) -> float:
    return sum(q.hits) / q.relevant if q.relevant else 0.0


@KERNELS.of("NumRelRet")
def _relevant_retrieved(q: Query) -> float:
    return float(sum(q.hits))


@KERNELS.of("Rprec")
def _r_precision(q: Query) -> float:
    return sum(q.hits[:q.relevant]) / q.relevant if q.relevant else 0.0


@KERNELS.of("AP")
def _average_precision(q: Query) -> float:
    if not q.relevant:
        return 0.0
    found, total = 0, 0.0
    for i, hit in enumerate(q.hits):
        if hit:
            found += 1
            total += found / (i + 1)
    return total / q.relevant


@KERNELS.of("Bpref")
def _bpref(q: Query) -> float:
    """bpref as trec_eval computes it (see evaluator.engines.metrics.bpref)."""
    if not q.relevant:
        return 0.0
    cap = min(sum(1 for label in q.judged.values() if 0 <= label < q.rel), q.relevant)
    nonrel, total = 0, 0.0
    for label, hit in zip(q.top, q.hits, strict=True):
        if hit:
            total += 1.0 - min(nonrel, q.relevant) / cap if nonrel > 0 else 1.0
        elif label is not None and 0 <= label < q.rel:
            nonrel += 1
    return total / q.relevant


KERNELS.check()
