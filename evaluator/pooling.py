"""Pools and pool bias: what assessors should judge next, and how much each team's runs
added to the judgments.

TREC builds its judgments from a *pool*: the union of the top k documents of the runs sent
in (Voorhees & Harman, "TREC: Experiment and Evaluation in Information Retrieval", 2005,
ch. 3). Documents outside the pool are never judged and count as non-relevant, so a run
that retrieves mostly unjudged documents scores a lower bound (Buckley et al., "Bias and
the limits of pooling", SIGIR 2006); Judged@k (`evaluator.engines.metrics.judged`) measures that.

- `top_documents`: each query's first k documents of a run, in trec_eval's order.
- `pool`: the union of several runs' top k, minus what is judged already: the next batch
  for the assessors.
- `unique_relevant`: relevant documents that only one group (a team) retrieved in its top k,
  the classic "pool contribution" table of TREC overview papers (Zobel, "How reliable are
  the results of large-scale information retrieval experiments?", SIGIR 1998).

Over a parsed `Run` and `Qrels`; only `top_documents` uses numpy (a run's rows are arrays).
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from .records import Qrels, Run

Tops = dict[str, list[str]]  # qid -> its top documents, best first


def top_documents(run: Run | None, k: int) -> Tops:
    """Each query's first `k` documents of `run` by trec_eval's order (score descending,
    then docid descending; the rank column is ignored). No run: no query. Rows come from
    `read_run` already in that order, so usually nothing is sorted; only the kept rows
    become Python strings (a tenth of a depth-100 run at k = 10)."""
    if k < 1:
        raise ValueError("k must be at least 1")
    if run is None or not len(run):
        return {}
    import numpy as np

    from .io.columns import take
    from .io.order import position_in_query, trec_order

    names, codes = run.query_codes()
    scores, docids = np.asarray(run.scores, dtype=np.float64), run.docid_array()
    order, _, _ = trec_order(codes, scores, docids)
    kept = order[position_in_query(codes[order]) < k]
    tops: Tops = {}
    for qid, docid in zip(names[codes[kept]].tolist(), take(docids, kept).to_pylist(), strict=True):
        tops.setdefault(qid, []).append(docid)
    return tops


def pool(tops: Iterable[Tops], *, judged: Qrels | None = None, queries: Iterable[str] | None = None) -> Tops:
    """The union of the runs' top documents per query, without those `judged` already holds
    (any label, negative ones too: they were looked at). `queries` limits it to those ids
    (e.g. the phase's topics). Queries in order of first appearance, docids sorted, so the
    same runs always give the same files."""
    known = judged.judgments if judged is not None else {}
    wanted = None if queries is None else set(queries)
    union: dict[str, set[str]] = {}
    for run_tops in tops:
        for qid, docids in run_tops.items():
            if wanted is None or qid in wanted:
                union.setdefault(qid, set()).update(docids)
    result = {}
    for qid, pooled in union.items():
        fresh = sorted(pooled.difference(known.get(qid, {})))
        if fresh:
            result[qid] = fresh
    return result


@dataclass(frozen=True, slots=True)
class Contribution:
    """One group's share of the relevant documents: `relevant` found in its top k by any of
    its runs, `unique` found by none of the other groups' runs."""

    group: str
    relevant: int
    unique: int


def unique_relevant(tops_by_group: Mapping[str, Iterable[Tops]], qrels: Qrels, *,
                    relevance_level: int = 1) -> list[Contribution]:
    """Per group (a team: all its runs together), the relevant judged documents its runs
    retrieved in their top k, and how many of those no other group retrieved there. A
    document's relevance is its label >= `relevance_level`; unjudged documents are not
    relevant (as in scoring). Groups in the order given."""
    judgments = qrels.judgments
    found: dict[str, set[tuple[str, str]]] = {}
    for group, runs in tops_by_group.items():
        pairs = found.setdefault(group, set())
        for run_tops in runs:
            for qid, docids in run_tops.items():
                labels = judgments.get(qid)
                if labels:
                    pairs.update((qid, d) for d in docids if labels.get(d, 0) >= relevance_level and d in labels)
    owners: dict[tuple[str, str], int] = {}
    for pairs in found.values():
        for pair in pairs:
            owners[pair] = owners.get(pair, 0) + 1
    return [Contribution(group, len(pairs), sum(1 for pair in pairs if owners[pair] == 1))
            for group, pairs in found.items()]
