"""CLIRMatrix (Sun & Duh, EMNLP 2020): cross-lingual retrieval from Wikipedia.

BI-139 pairs a query language with a document language; MULTI-8 searches 8 languages,
one pool per language or one mixed pool. Labels are graded 0-6 and nDCG@10 uses gain
2^label - 1. Docids (Wikipedia article ids) are unique only within a language, so a
mixed pool prefixes them with the language: `de:12345`. Published as JSON lines, one
query per line: {"src_id", "src_query", "tgt_results": [[docid, label], ...]}.
"""
from __future__ import annotations

import json
from collections.abc import Iterable, Mapping

from ..io.sources import Source, iter_lines, source_name
from ..io.validation import ProblemLog, decoded_lines
from ..records import InputError, Problem, Qrels
from . import ALL, Benchmark, GroupSpec, SubsetSpec

MULTI8 = ("ar", "de", "en", "es", "fr", "ja", "ru", "zh")
MAX_LABEL = 6


def pair_subsets(sources: Iterable[str], targets: Iterable[str]) -> tuple[SubsetSpec, ...]:
    """One subset per (query language, document language) pair, grouped by query language
    so the leaderboard reads as a source x target matrix."""
    targets = tuple(targets)
    return tuple(SubsetSpec(f"{s}-{t}", f"{s} -> {t}", "pair", f"from-{s}")
                 for s in sources for t in targets if s != t)


def read_jsonl(source: Source, *, name: str | None = None,
               prefix: str | None = None) -> tuple[dict[str, str], Qrels]:
    """Topics and graded qrels from one CLIRMatrix JSON-lines file; docids get
    `prefix:` when given (for mixed-language pools)."""
    file = source_name(source, name)
    log = ProblemLog(file)
    topics: dict[str, str] = {}
    judgments: dict[str, dict[str, int]] = {}
    for number, text in decoded_lines(iter_lines(source, file=file), log):
        try:
            record = json.loads(text)
            qid, query = str(record["src_id"]), str(record["src_query"])
            results = [(str(docid), int(label)) for docid, label in record["tgt_results"]]
        except (ValueError, KeyError, TypeError) as exc:
            log.error("bad-record", f"not a CLIRMatrix record ({type(exc).__name__}: {exc})", number)
            continue
        bad = [label for _, label in results if not 0 <= label <= MAX_LABEL]
        if bad:
            log.error("bad-label", f"label {bad[0]} is outside 0-{MAX_LABEL}", number)
            continue
        topics.setdefault(qid, query)
        docs = judgments.setdefault(qid, {})
        for docid, label in results:
            docs[f"{prefix}:{docid}" if prefix else docid] = label
    if log.errors:
        raise InputError(log.errors)
    return topics, Qrels(judgments)


def read_mixed_pool(files: Mapping[str, Source]) -> tuple[dict[str, str], Qrels]:
    """MULTI-8 mixed pool: the files of one query language, keyed by document language,
    merged into one judgment set with language-prefixed docids."""
    topics: dict[str, str] = {}
    judgments: dict[str, dict[str, int]] = {}
    for language, source in files.items():
        part_topics, part = read_jsonl(source, prefix=language)
        for qid, query in part_topics.items():
            topics.setdefault(qid, query)
        for qid, docs in part.judgments.items():
            judgments.setdefault(qid, {}).update(docs)
    if not judgments:
        raise InputError([Problem("empty-file", "no judgments in any file", ", ".join(files) or "<none>")])
    return topics, Qrels(judgments)


BENCHMARK = Benchmark(
    key="clirmatrix",
    title="CLIRMatrix MULTI-8",
    docid_pattern=None,
    metrics=("nDCG@10",),
    primary_metric="nDCG@10",
    gain="exp2",
    subsets=pair_subsets(MULTI8, MULTI8) + tuple(
        SubsetSpec(f"{s}-multi", f"{s} -> all 8 (mixed pool)", "pair", "mixed") for s in MULTI8),
    groups=tuple(GroupSpec(f"from-{s}", f"{s}.Avg") for s in MULTI8)
    + (GroupSpec("mixed", "M.Avg"), GroupSpec(ALL, "Avg")),
    converters={"jsonl": read_jsonl, "mixed-pool": read_mixed_pool},
)
