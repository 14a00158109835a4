"""The metric registry: names as IR people write them, parsed into `Metric` records.

Names follow ir_measures (`nDCG@10`, `R@100`, `RR@10`, `AP`, `P(rel=2)@10`,
`nDCG(gain=exp)@10`); trec_eval's own names (`ndcg_cut_10`, `recall_100`, `recip_rank`,
`map`, `map_cut_10`, `P_10`, `success_10`) are accepted too, so a number copied from a
paper's trec_eval command line can be looked up directly.

What every metric means is trec_eval's (`-c`), which `evaluator.scoring` implements and
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
(one vectorised function per family, computing every query's value at once).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Literal, Protocol

import numpy as np

Gain = Literal["label", "exp"]
GAINS: tuple[str, ...] = ("label", "exp")
# Other spellings of the two gains: ir_measures' dcg= values and the benchmark registry's.
GAIN_ALIASES = {"log2": "label", "exp-log2": "exp", "exp2": "exp"}


class Judgments(Protocol):
    """What kernels need from the qrels side (implemented by `evaluator.scoring.JudgmentIndex`)."""

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


def gains(labels: np.ndarray, gain: str) -> np.ndarray:
    """Gain of each label: the label itself (trec_eval) or 2^label - 1 (Burges et al., 2005,
    as CLIRMatrix reports it). Negative labels gain 0, as in trec_eval."""
    clipped = np.maximum(labels, 0).astype(np.float64)
    return clipped if gain == "label" else np.exp2(clipped) - 1.0


def _per_query(r: Ranked, mask: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
    return np.bincount(r.qidx[mask], weights=None if weights is None else weights[mask],
                       minlength=r.n_queries).astype(np.float64)


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    # trec_eval turns 0/0 (no relevant document) into 0
    return np.divide(num, den, out=np.zeros_like(num), where=den > 0)


def ndcg(r: Ranked, cutoff: int | None, *, rel: int, gain: str) -> np.ndarray:
    """nDCG@k (Järvelin & Kekäläinen, TOIS 2002; trec_eval `ndcg_cut`): DCG of the top k,
    sum of gain / log2(rank + 1) with 1-based ranks, divided by the DCG of the ideal
    ordering of every judged document of the query cut at k. Without k (trec_eval `ndcg`)
    the DCG is over the whole ranking (up to the depth) and the ideal over every judged
    document, however many: 150 relevant documents with the first 100 retrieved score
    0.7448, not 1. Graded: the relevance level does not apply, as in trec_eval."""
    top = r.rank < (cutoff or r.depth)
    dcg = _per_query(r, top, gains(r.label, gain) / np.log2(r.rank + 2.0))
    return _ratio(dcg, r.judgments.ideal_dcg(gain, cutoff))


def _relevant_in_top(r: Ranked, cutoff: int | None, rel: int) -> np.ndarray:
    """Relevant rows within the cutoff (None: the whole ranking, up to the depth)."""
    return (r.rank < (cutoff or r.depth)) & r.judged & (r.label >= rel)


def recall(r: Ranked, cutoff: int, *, rel: int, gain: str) -> np.ndarray:
    """R@k (trec_eval `recall_k`): relevant documents in the top k / relevant documents judged."""
    return _ratio(_per_query(r, _relevant_in_top(r, cutoff, rel)), r.judgments.relevant_counts(rel))


def precision(r: Ranked, cutoff: int, *, rel: int, gain: str) -> np.ndarray:
    """P@k (trec_eval `P_k`): relevant documents in the top k / k, even when fewer were retrieved."""
    return _per_query(r, _relevant_in_top(r, cutoff, rel)) / cutoff


def success(r: Ranked, cutoff: int, *, rel: int, gain: str) -> np.ndarray:
    """Success@k (trec_eval `success_k`): 1 when a relevant document is in the top k, else 0."""
    return (_per_query(r, _relevant_in_top(r, cutoff, rel)) > 0).astype(np.float64)


def reciprocal_rank(r: Ranked, cutoff: int, *, rel: int, gain: str) -> np.ndarray:
    """RR@k (Voorhees, TREC-8 QA 2000; trec_eval `recip_rank` on the run cut at k):
    1 / rank of the first relevant document in the top k, 0 when there is none."""
    rows = np.flatnonzero(_relevant_in_top(r, cutoff, rel))
    # rows are sorted by query then rank: the first row of each query is its best
    first = rows[np.r_[True, r.qidx[rows[1:]] != r.qidx[rows[:-1]]]] if len(rows) else rows
    values = np.zeros(r.n_queries)
    values[r.qidx[first]] = 1.0 / (r.rank[first] + 1.0)
    return values


def average_precision(r: Ranked, cutoff: int, *, rel: int, gain: str) -> np.ndarray:
    """AP@k (trec_eval `map_cut_k`; `map` when k is the depth): the sum, over relevant
    documents in the top k, of the precision at their rank, divided by the number of
    relevant documents judged (not by k: unretrieved relevant documents count 0)."""
    hits = _relevant_in_top(r, cutoff, rel)
    total = _per_query(r, hits, _within_query_cumsum(r, hits) / (r.rank + 1.0))
    return _ratio(total, r.judgments.relevant_counts(rel))


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


def r_precision(r: Ranked, cutoff: int | None, *, rel: int, gain: str) -> np.ndarray:
    """R-precision (trec_eval `Rprec`): relevant documents in the top R / R, R being the
    query's relevant documents judged."""
    counts = r.judgments.relevant_counts(rel)
    return _ratio(_per_query(r, _relevant_in_top(r, cutoff, rel) & (r.rank < counts[r.qidx])), counts)


def relevant_retrieved(r: Ranked, cutoff: int | None, *, rel: int, gain: str) -> np.ndarray:
    """num_rel_ret (trec_eval): relevant documents retrieved within the depth; its
    summary over queries is the sum, as trec_eval prints it."""
    return _per_query(r, _relevant_in_top(r, cutoff, rel))


def _within_query_cumsum(r: Ranked, flags: np.ndarray) -> np.ndarray:
    """How many rows of the same query up to and including each row have `flags` set."""
    running = np.cumsum(flags)
    starts = np.flatnonzero(np.r_[True, r.qidx[1:] != r.qidx[:-1]]) if len(flags) else np.zeros(0, int)
    before = running[starts] - flags[starts]
    return running - np.repeat(before, np.diff(np.r_[starts, len(flags)]))


def judged(r: Ranked, cutoff: int, *, rel: int, gain: str) -> np.ndarray:
    """Judged@k (ir_measures, after OpenNIR; MacAvaney et al.): judged documents in the top
    k / k. Labels do not matter, only whether a judgment exists."""
    return _per_query(r, (r.rank < cutoff) & r.judged) / cutoff


Kernel = Callable[..., np.ndarray]


@dataclass(frozen=True, slots=True)
class Family:
    """One metric family: its canonical name, whether it takes a cutoff, which params it accepts."""

    name: str
    cutoff: Literal["required", "optional", "none"]
    params: frozenset[str]
    kernel: Kernel
    summary: Literal["mean", "sum"] = "mean"  # how queries' values combine (trec_eval sums counts)


# The registry. Adding a metric means adding a kernel above and a row here.
FAMILIES: dict[str, Family] = {f.name: f for f in (
    Family("nDCG", "optional", frozenset({"gain"}), ndcg),
    Family("R", "optional", frozenset({"rel"}), recall),
    Family("RR", "optional", frozenset({"rel"}), reciprocal_rank),
    Family("AP", "optional", frozenset({"rel"}), average_precision),
    Family("P", "required", frozenset({"rel"}), precision),
    Family("Success", "required", frozenset({"rel"}), success),
    Family("Judged", "required", frozenset(), judged),
    Family("Bpref", "none", frozenset({"rel"}), bpref),
    Family("Rprec", "none", frozenset({"rel"}), r_precision),
    Family("NumRelRet", "none", frozenset({"rel"}), relevant_retrieved, "sum"),
)}

# Lower-cased spellings people use -> canonical family name.
ALIASES: dict[str, str] = {
    "ndcg": "nDCG", "r": "R", "recall": "R", "rr": "RR", "mrr": "RR", "ap": "AP", "map": "AP",
    "p": "P", "precision": "P", "success": "Success", "judged": "Judged",
    "bpref": "Bpref", "rprec": "Rprec", "numrelret": "NumRelRet",
}

# trec_eval measure names -> (family, whether the number after '_' is the cutoff).
TREC_NAMES: dict[str, str] = {
    "ndcg_cut": "nDCG", "ndcg": "nDCG", "recall": "R", "recip_rank": "RR", "map": "AP",
    "map_cut": "AP", "P": "P", "success": "Success", "bpref": "Bpref", "Rprec": "Rprec",
    "num_rel_ret": "NumRelRet",
}

_IR_MEASURES = re.compile(r"^(?P<name>[A-Za-z]+)(?:\((?P<params>[^)]*)\))?(?:@(?P<cutoff>\d+))?$")
_TREC = re.compile(r"^(?P<name>ndcg_cut|recall|map_cut|P|success)_(?P<cutoff>\d+)$|^(?P<plain>recip_rank|map|ndcg|bpref|Rprec|num_rel_ret)$")


@dataclass(frozen=True, slots=True)
class Metric:
    """A parsed metric: family name, cutoff (None = the evaluation depth) and parameters.

    `rel` None means "the Evaluator's relevance level"; `gain` None means "the Evaluator's gain".
    `str(metric)` is the canonical ir_measures-style name.
    """

    family: str
    cutoff: int | None = None
    rel: int | None = None
    gain: str | None = None

    def __str__(self) -> str:
        params = []
        if self.rel is not None:
            params.append(f"rel={self.rel}")
        if self.gain is not None:
            params.append(f"gain={self.gain}")
        text = self.family + (f"({','.join(params)})" if params else "")
        return text + (f"@{self.cutoff}" if self.cutoff is not None else "")


def _bad(name: str, why: str) -> ValueError:
    known = ", ".join(["nDCG@k", "R@k", "RR@k", "MRR@k", "AP", "AP@k", "P@k", "Success@k", "Judged@k", "Bpref",
                       "Rprec", "NumRelRet", "or trec_eval's names"])
    return ValueError(f"unknown metric {name!r}: {why} (known: {known}; params: rel=N, gain=label|exp)")


def _parse_params(name: str, text: str | None, family: Family) -> dict[str, object]:
    params: dict[str, object] = {}
    for item in filter(None, (part.strip() for part in (text or "").split(","))):
        key, sep, value = item.partition("=")
        key, value = key.strip(), value.strip().strip("'\"")
        if key == "dcg":  # ir_measures' spelling of the gain choice
            key = "gain"
        if key == "gain":
            value = GAIN_ALIASES.get(value, value)
        if not sep or key not in family.params:
            raise _bad(name, f"{family.name} takes no parameter {key!r}")
        if key == "rel":
            if not re.fullmatch(r"-?\d+", value):
                raise _bad(name, "rel must be an integer")
            params["rel"] = int(value)
        elif key == "gain":
            if value not in GAINS:
                raise _bad(name, "gain must be 'label' (trec_eval) or 'exp' (2^label - 1)")
            params["gain"] = value
    return params


def parse_metric(name: str) -> Metric:
    """Parse `nDCG@10`, `MRR@100`, `P(rel=2)@5`, `ndcg_cut_10`, ... into a `Metric`.

    Raises ValueError naming the problem and the known metrics: a typo in a competition
    definition must fail when the competition is loaded, not when the first run is scored.
    """
    text = name.strip()
    trec = _TREC.match(text)
    if trec:
        family = TREC_NAMES[trec.group("name") or trec.group("plain")]
        cutoff = trec.group("cutoff")
        return Metric(family, int(cutoff) if cutoff else None)
    match = _IR_MEASURES.match(text)
    if not match:
        raise _bad(name, "expected NAME, NAME@k or NAME(param=value)@k")
    canonical = ALIASES.get(match.group("name").lower())
    if canonical is None:
        raise _bad(name, f"no metric called {match.group('name')!r}")
    family = FAMILIES[canonical]
    cutoff = int(match.group("cutoff")) if match.group("cutoff") else None
    if cutoff is None and family.cutoff == "required":
        raise _bad(name, f"{family.name} needs a cutoff, e.g. {family.name}@10")
    if cutoff is not None and family.cutoff == "none":
        raise _bad(name, f"{family.name} takes no cutoff")
    if cutoff is not None and cutoff < 1:
        raise _bad(name, "the cutoff must be at least 1")
    return Metric(family.name, cutoff, **_parse_params(name, match.group("params"), family))


_TREC_OF = {"nDCG": ("ndcg", "ndcg_cut"), "R": (None, "recall"), "RR": ("recip_rank", None), "AP": ("map", "map_cut"),
            "P": (None, "P"), "Success": (None, "success"), "Bpref": ("bpref", None), "Rprec": ("Rprec", None),
            "NumRelRet": ("num_rel_ret", None)}


def trec_name(metric: Metric) -> str | None:
    """trec_eval's name for a metric (`ndcg_cut_10`, `map`, `recip_rank`...), or None when
    trec_eval has no such measure (RR@10, Judged@10, a rel= or gain= parameter, or recall
    without a cutoff)."""
    if metric.rel is not None or metric.gain not in (None, "label"):
        return None
    plain, cut = _TREC_OF.get(metric.family, (None, None))
    if metric.cutoff is None:
        return plain
    return f"{cut}_{metric.cutoff}" if cut else None
