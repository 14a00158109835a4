"""Metric names, parsed into `Metric` records: the registry of families and their spellings.

Names follow ir_measures (`nDCG@10`, `R@100`, `RR@10`, `AP`, `P(rel=2)@10`,
`nDCG(gain=exp)@10`); trec_eval's own names (`ndcg_cut_10`, `recall_100`, `recip_rank`,
`map`, `map_cut_10`, `P_10`, `success_10`, `bpref`, `Rprec`, `num_rel_ret`, `unj_10`) are accepted
too, so a number copied from a paper's trec_eval command line can be looked up directly.
No numpy here: the command line parses names before it knows whether it needs numpy.
What each metric computes is in `evaluator.engines.metrics` (vectorised) and `evaluator.engines.small`.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

Gain = Literal["label", "exp"]
GAINS: tuple[str, ...] = ("label", "exp")
# Other spellings of the two gains: ir_measures' dcg= values and the benchmark registry's.
GAIN_ALIASES = {"log2": "label", "exp-log2": "exp", "exp2": "exp"}


@dataclass(frozen=True, slots=True)
class Family:
    """One metric family: its canonical name, whether it takes a cutoff, which params it accepts."""

    name: str
    cutoff: Literal["required", "optional", "none"]
    params: frozenset[str]
    summary: Literal["mean", "sum"] = "mean"  # how queries' values combine (trec_eval sums counts)


# The registry. Adding a metric means adding a row here and a kernel in evaluator.engines.metrics.
FAMILIES: dict[str, Family] = {f.name: f for f in (
    Family("nDCG", "optional", frozenset({"gain"})),
    Family("R", "optional", frozenset({"rel"})),
    Family("RR", "optional", frozenset({"rel"})),
    Family("AP", "optional", frozenset({"rel"})),
    Family("P", "required", frozenset({"rel"})),
    Family("Success", "required", frozenset({"rel"})),
    Family("Judged", "required", frozenset()),
    Family("Unjudged", "required", frozenset()),
    Family("Bpref", "none", frozenset({"rel"})),
    Family("Rprec", "none", frozenset({"rel"})),
    Family("NumRelRet", "none", frozenset({"rel"}), "sum"),
)}

# Lower-cased spellings people use -> canonical family name.
ALIASES: dict[str, str] = {
    "ndcg": "nDCG", "r": "R", "recall": "R", "rr": "RR", "mrr": "RR", "ap": "AP", "map": "AP",
    "p": "P", "precision": "P", "success": "Success", "judged": "Judged", "unjudged": "Unjudged",
    "bpref": "Bpref", "rprec": "Rprec", "numrelret": "NumRelRet",
}

# trec_eval measure names -> (family, whether the number after '_' is the cutoff).
TREC_NAMES: dict[str, str] = {
    "ndcg_cut": "nDCG", "ndcg": "nDCG", "recall": "R", "recip_rank": "RR", "map": "AP",
    "map_cut": "AP", "P": "P", "success": "Success", "bpref": "Bpref", "Rprec": "Rprec",
    "num_rel_ret": "NumRelRet", "unj": "Unjudged",
}

_IR_MEASURES = re.compile(r"^(?P<name>[A-Za-z]+)(?:\((?P<params>[^)]*)\))?(?:@(?P<cutoff>\d+))?$")
_TREC = re.compile(r"^(?P<name>ndcg_cut|recall|map_cut|P|success|unj)_(?P<cutoff>\d+)$|^(?P<plain>recip_rank|map|ndcg|bpref|Rprec|num_rel_ret)$")


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
    known = ", ".join(["nDCG@k", "R@k", "RR@k", "MRR@k", "AP", "AP@k", "P@k", "Success@k", "Judged@k", "Unjudged@k", "Bpref",
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
            "NumRelRet": ("num_rel_ret", None), "Unjudged": (None, "unj")}


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


def parse_metrics(names, depth: int) -> dict[str, Metric]:
    """{name: Metric}; ValueError for an unknown name or a cutoff deeper than `depth`."""
    metrics = {name: parse_metric(name) for name in names}
    for name, metric in metrics.items():
        if metric.cutoff is not None and metric.cutoff > depth:
            raise ValueError(f"{name} looks deeper than the evaluation depth {depth}")
    return metrics
