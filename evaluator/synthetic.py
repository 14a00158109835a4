"""Deterministic MIRACL-shaped data: topics, qrels and runs, for benchmarks, tests and the demo.

Shape, not content: numeric qids that repeat across languages, ~10 binary judgments per
query with judged negatives (and a few queries with nothing relevant), docids
`ARTICLE#PASSAGE`, runs with realistic score ties, a few missing queries and the judged
documents scattered through them. Every column is built with numpy and written by
pyarrow's CSV writer, so the 1.74 M lines of a full test-B set at depth 100 take seconds.
"""
from __future__ import annotations

import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pcsv

from .benchmarks.miracl import TEST_B_QUERY_COUNTS

MIRACL_TEST_B_QUERY_COUNTS: dict[str, int] = dict(TEST_B_QUERY_COUNTS)
# Judged articles live above this id, run filler below it, so a run never repeats a docid.
_JUDGED_BASE = 50_000_000


@dataclass(frozen=True, slots=True)
class Judgments:
    """The judged documents of one language: parallel arrays, one row per judgment."""

    qids: np.ndarray  # int64 query ids, ascending
    query_index: np.ndarray  # which query (0..count-1) each row belongs to
    articles: np.ndarray
    passages: np.ndarray
    labels: np.ndarray


def _rng(language: str, seed: int, purpose: str) -> np.random.Generator:
    # crc32, not hash(): str hashes change between processes.
    return np.random.default_rng([seed, zlib.crc32(f"{language}/{purpose}".encode())])


def query_ids(language: str, count: int, *, seed: int = 0) -> np.ndarray:
    """Ascending numeric qids; different languages share many of them, as MIRACL's do."""
    return np.cumsum(_rng(language, seed, "qids").integers(1, 4, count))


def judgments(language: str, count: int, *, seed: int = 0, per_query: float = 10.0) -> Judgments:
    """~`per_query` binary judgments per query (at least 2), about a third relevant; ~3% of
    queries have no relevant document at all."""
    rng = _rng(language, seed, "qrels")
    sizes = np.maximum(rng.poisson(per_query, count), 2)
    query_index = np.repeat(np.arange(count), sizes)
    n = query_index.size
    labels = (rng.random(n) < 0.35).astype(np.int64)
    labels[np.isin(query_index, np.flatnonzero(rng.random(count) < 0.03))] = 0
    offset = np.arange(n) - np.repeat(np.cumsum(sizes) - sizes, sizes)
    articles = _JUDGED_BASE + rng.integers(0, 10**6, count)[query_index] * 64 + offset
    return Judgments(query_ids(language, count, seed=seed)[query_index], query_index,
                     articles, rng.integers(0, 30, n), labels)


def _docids(articles: np.ndarray, passages: np.ndarray) -> pa.Array:
    return pc.binary_join_element_wise(pc.cast(pa.array(articles), pa.string()),
                                       pc.cast(pa.array(passages), pa.string()), "#")


def _write(table: pa.Table, where: Path | str, delimiter: str) -> Path:
    path = Path(where)
    path.parent.mkdir(parents=True, exist_ok=True)
    options = pcsv.WriteOptions(include_header=False, delimiter=delimiter, quoting_style="none")
    sink = pa.CompressedOutputStream(str(path), "gzip") if path.suffix == ".gz" else str(path)
    pcsv.write_csv(table, sink, options)
    if not isinstance(sink, str):
        sink.close()
    return path


def make_topics(path: Path | str, *, language: str, count: int, seed: int = 0) -> Path:
    """`qid<TAB>text` for `count` queries (gzip when the name ends in .gz)."""
    qids = pc.cast(pa.array(query_ids(language, count, seed=seed)), pa.string())
    text = pc.binary_join_element_wise("synthetic", language, "query", qids, " ")
    return _write(pa.table({"qid": qids, "text": text}), path, "\t")


def make_qrels(path: Path | str, *, language: str, count: int, seed: int = 0, per_query: float = 10.0) -> Path:
    """`qid<TAB>Q0<TAB>docid<TAB>label`, as MIRACL publishes its qrels."""
    j = judgments(language, count, seed=seed, per_query=per_query)
    n = j.qids.size
    return _write(pa.table({"qid": j.qids, "q0": pa.repeat("Q0", n),
                            "docid": _docids(j.articles, j.passages), "label": j.labels}), path, "\t")


def make_run(path: Path | str, *, language: str, count: int, depth: int = 100, seed: int = 0,
             tag: str = "synthetic", missing: float = 0.02, ties: float = 0.1, found: float = 0.7) -> Path:
    """A run of `depth` documents for all but ~`missing` of the queries, scores descending
    with ties in ~`ties` of the queries, ranks 1..depth; each judged document is retrieved
    with probability `found`, at a random rank."""
    rng = _rng(language, seed, f"run/{tag}")
    qids = query_ids(language, count, seed=seed)
    kept = np.flatnonzero(rng.random(count) >= missing)
    rows = kept.size * depth
    row_query = np.repeat(kept, depth)
    rank = np.tile(np.arange(1, depth + 1), kept.size)
    articles = rng.integers(1, 10**6, kept.size).repeat(depth) * 64 + rank  # unique per query
    passages = rng.integers(0, 30, rows)
    # Scores fall with rank; coarse rounding in some queries makes ties, as BM25 runs have.
    steps = rng.exponential(0.05, rows).reshape(kept.size, depth)
    scores = (30.0 - np.cumsum(steps, axis=1)).ravel()
    coarse = np.repeat(rng.random(kept.size) < ties, depth)
    scores = np.where(coarse, np.round(scores, 1), np.round(scores, 4))
    j = judgments(language, count, seed=seed)
    position = np.full(count, -1)
    position[kept] = np.arange(kept.size)
    hit = (position[j.query_index] >= 0) & (rng.random(j.qids.size) < found)
    slot = position[j.query_index[hit]] * depth + rng.integers(0, depth, hit.sum())
    slot, first = np.unique(slot, return_index=True)  # two judged docs may draw one slot
    articles[slot] = j.articles[hit][first]
    passages[slot] = j.passages[hit][first]
    table = pa.table({"qid": qids[row_query], "q0": pa.repeat("Q0", rows),
                      "docid": _docids(articles, passages), "rank": rank, "score": scores,
                      "tag": pa.repeat(tag, rows)})
    return _write(table, path, " ")


def make_miracl_set(directory: Path | str, *, counts: dict[str, int] | None = None, depth: int = 100,
                    seed: int = 0, split: str = "test-b", tag: str = "synthetic") -> dict[str, dict[str, Path]]:
    """Topics, qrels and one run per language, named as MIRACL names its files:
    {language: {"topics": path, "qrels": path, "run": path}}."""
    directory = Path(directory)
    out = {}
    for language, count in (counts or MIRACL_TEST_B_QUERY_COUNTS).items():
        out[language] = {
            "topics": make_topics(directory / f"topics.miracl-v1.0-{language}-{split}.tsv",
                                  language=language, count=count, seed=seed),
            "qrels": make_qrels(directory / f"qrels.miracl-v1.0-{language}-{split}.tsv",
                                language=language, count=count, seed=seed),
            "run": make_run(directory / f"run.miracl.{tag}.{language}.{split}.txt", language=language,
                            count=count, depth=depth, seed=seed, tag=tag),
        }
    return out


def run_over_qrels(judgments: dict[str, dict[str, int]], *, depth: int, seed: int = 0, found: float = 0.8,
                   tag: str = "deep") -> str:
    """A run of `depth` documents for every judged query of real qrels ({qid: {docid: label}}),
    as TREC text: each judged document is retrieved with probability `found` at a rank drawn
    from the whole depth, so at depth 1000 most land below 100 and AP or nDCG without a cutoff
    tell a run cut at 100 from a whole one; the rest is unjudged filler (`ARTICLE#PASSAGE`
    ids no qrels use). Distinct scores falling with rank, so every engine orders it alike."""
    rng = np.random.default_rng([seed, depth])
    lines = []
    for number, (qid, docs) in enumerate(sorted(judgments.items())):
        ranking = [f"{_JUDGED_BASE - 1 - number}#{rank}" for rank in range(depth)]
        taken = [docid for docid in sorted(docs) if rng.random() < found][:depth]
        for docid, rank in zip(taken, rng.choice(depth, len(taken), replace=False), strict=True):
            ranking[rank] = docid
        lines += [f"{qid} Q0 {docid} {rank + 1} {depth - rank} {tag}\n" for rank, docid in enumerate(ranking)]
    return "".join(lines)
