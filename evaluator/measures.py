"""The measures: each declared once here, and every table, parser and engine lookup derived.

A `Measure` is what ir_measures calls a measure definition: its name as IR people write it
(`nDCG`, `R`, `RR`, `AP`...), its spellings, the parameters and cutoff it takes, trec_eval's
name(s) for it, how queries' values combine, and which engines compute it:

- `FAST`: the vectorised numpy kernel (`evaluator.engines.metrics`, `@kernel(name)`);
- `PYTREC`: pytrec_eval, the second opinion of `--check` (`evaluator.engines.check`), which
  needs a trec_eval name that trec_eval 9 (what pytrec_eval wraps) knows.

Adding a measure is one `Measure(...)` below plus its kernel in each engine it lists; an
engine whose kernels do not match the declarations refuses to import (`Kernels.check`), and
tests/evaluator/test_measures.py checks the trec_eval names against trec_eval's own.

Names parse as ir_measures writes them (`nDCG@10`, `R@100`, `RR@10`, `AP`, `P(rel=2)@10`,
`nDCG(gain=exp)@10`) and as trec_eval does (`ndcg_cut_10`, `recall_100`, `recip_rank`, `map`,
`P_10`, `unj_10`...), so a number copied from a paper's trec_eval command line can be looked
up directly. No numpy here: the command line refuses a bad name before it imports numpy.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Literal, TypeVar

Gain = Literal["label", "exp"]
GAINS: tuple[str, ...] = ("label", "exp")
# Other spellings of the two gains: ir_measures' dcg= values and the benchmark registry's.
GAIN_ALIASES = {"log2": "label", "exp-log2": "exp", "exp2": "exp"}

FAST, PYTREC = "fast", "pytrec_eval"
EVERY_ENGINE = frozenset({FAST, PYTREC})
OURS = frozenset({FAST})  # trec_eval 9 (pytrec_eval) has no such measure
REL = frozenset({"rel"})


@dataclass(frozen=True, slots=True)
class Measure:
    """One measure, declared once.

    `cutoff`: whether `@k` is required, optional (without it: the evaluation depth) or refused.
    `trec` is trec_eval's name without a cutoff (`map`), `trec_cut` its name with one
    (`map_cut` -> `map_cut_10`); None where trec_eval has no such measure.
    `summary`: how queries' values combine into the one number (trec_eval sums counts).
    """

    name: str
    about: str
    cutoff: Literal["required", "optional", "none"]
    params: frozenset[str] = REL
    aliases: tuple[str, ...] = ()
    trec: str | None = None
    trec_cut: str | None = None
    summary: Literal["mean", "sum"] = "mean"
    engines: frozenset[str] = EVERY_ENGINE


MEASURES: dict[str, Measure] = {m.name: m for m in (
    Measure("nDCG", "normalised discounted cumulative gain (Järvelin & Kekäläinen 2002)", "optional",
            frozenset({"gain"}), trec="ndcg", trec_cut="ndcg_cut"),
    Measure("R", "recall: relevant in the top k / relevant judged", "optional", aliases=("recall",), trec_cut="recall"),
    Measure("RR", "reciprocal rank of the first relevant document (Voorhees 2000)", "optional", aliases=("MRR",),
            trec="recip_rank"),
    Measure("AP", "average precision; its mean is MAP", "optional", aliases=("MAP",), trec="map", trec_cut="map_cut"),
    Measure("P", "precision: relevant in the top k / k", "required", aliases=("precision",), trec_cut="P"),
    Measure("Success", "1 when a relevant document is in the top k", "required", trec_cut="success"),
    Measure("Judged", "judged documents in the top k / k (MacAvaney et al.)", "required", frozenset(), engines=OURS),
    Measure("Unjudged", "unjudged documents in the top k / k (trec_eval 10, Soboroff 2023)", "required", frozenset(),
            trec_cut="unj", engines=OURS),
    Measure("Bpref", "binary preference (Buckley & Voorhees 2004)", "none", trec="bpref"),
    Measure("Rprec", "precision at R, the number of relevant documents judged", "none", trec="Rprec"),
    Measure("NumRelRet", "relevant documents retrieved, summed over queries", "none", trec="num_rel_ret", summary="sum"),
)}

# Derived: lower-cased spellings -> measure name; trec_eval names -> measure name.
ALIASES: dict[str, str] = {spelling.lower(): m.name for m in MEASURES.values() for spelling in (m.name, *m.aliases)}
TREC_NAMES: dict[str, str] = {trec: m.name for m in MEASURES.values() for trec in (m.trec, m.trec_cut) if trec}


def _alternatives(names: Iterable[str]) -> str:
    return "|".join(map(re.escape, sorted(names, key=len, reverse=True)))


_IR_MEASURES = re.compile(r"^(?P<name>[A-Za-z]+)(?:\((?P<params>[^)]*)\))?(?:@(?P<cutoff>\d+))?$")
_TREC = re.compile(rf"^(?P<name>{_alternatives(m.trec_cut for m in MEASURES.values() if m.trec_cut)})_(?P<cutoff>\d+)$"
                   rf"|^(?P<plain>{_alternatives(m.trec for m in MEASURES.values() if m.trec)})$")


@dataclass(frozen=True, slots=True)
class Metric:
    """A parsed metric: measure name, cutoff (None = the evaluation depth) and parameters.

    `rel` None means "the Evaluator's relevance level"; `gain` None means "the Evaluator's gain".
    `str(metric)` is the canonical ir_measures-style name.
    """

    family: str
    cutoff: int | None = None
    rel: int | None = None
    gain: str | None = None

    @property
    def measure(self) -> Measure:
        return MEASURES[self.family]

    def __str__(self) -> str:
        params = []
        if self.rel is not None:
            params.append(f"rel={self.rel}")
        if self.gain is not None:
            params.append(f"gain={self.gain}")
        text = self.family + (f"({','.join(params)})" if params else "")
        return text + (f"@{self.cutoff}" if self.cutoff is not None else "")


def _bad(name: str, why: str) -> ValueError:
    shapes = {"required": "{}@k", "optional": "{}[@k]", "none": "{}"}
    known = ", ".join([shapes[m.cutoff].format(m.name) for m in MEASURES.values()] + ["or trec_eval's names"])
    return ValueError(f"unknown metric {name!r}: {why} (known: {known}; params: rel=N, gain=label|exp)")


def _parse_params(name: str, text: str | None, measure: Measure) -> dict[str, object]:
    params: dict[str, object] = {}
    for item in filter(None, (part.strip() for part in (text or "").split(","))):
        key, sep, value = item.partition("=")
        key, value = key.strip(), value.strip().strip("'\"")
        if key == "dcg":  # ir_measures' spelling of the gain choice
            key = "gain"
        if key == "gain":
            value = GAIN_ALIASES.get(value, value)
        if not sep or key not in measure.params:
            raise _bad(name, f"{measure.name} takes no parameter {key!r}")
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
        cutoff = trec.group("cutoff")
        return Metric(TREC_NAMES[trec.group("name") or trec.group("plain")], int(cutoff) if cutoff else None)
    match = _IR_MEASURES.match(text)
    if not match:
        raise _bad(name, "expected NAME, NAME@k or NAME(param=value)@k")
    canonical = ALIASES.get(match.group("name").lower())
    if canonical is None:
        raise _bad(name, f"no metric called {match.group('name')!r}")
    measure = MEASURES[canonical]
    cutoff = int(match.group("cutoff")) if match.group("cutoff") else None
    if cutoff is None and measure.cutoff == "required":
        raise _bad(name, f"{measure.name} needs a cutoff, e.g. {measure.name}@10")
    if cutoff is not None and measure.cutoff == "none":
        raise _bad(name, f"{measure.name} takes no cutoff")
    if cutoff is not None and cutoff < 1:
        raise _bad(name, "the cutoff must be at least 1")
    return Metric(measure.name, cutoff, **_parse_params(name, match.group("params"), measure))  # type: ignore[arg-type]


def trec_name(metric: Metric) -> str | None:
    """trec_eval's name for a metric (`ndcg_cut_10`, `map`, `recip_rank`...), or None when
    trec_eval has no such measure (RR@10, Judged@10, a rel= or gain= parameter, or recall
    without a cutoff)."""
    if metric.rel is not None or metric.gain not in (None, "label"):
        return None
    measure = metric.measure
    if metric.cutoff is None:
        return measure.trec
    return f"{measure.trec_cut}_{metric.cutoff}" if measure.trec_cut else None


def trec_eval_measures(trec_names: Iterable[str]) -> list[str]:
    """How trec_eval's `-m` (and pytrec_eval's measure set) asks for trec_eval names:
    `ndcg_cut_10` is asked as `ndcg_cut.10`, and the cutoffs of one measure go together
    (`ndcg_cut.5,10`), as a second `-m ndcg_cut.10` would replace the first."""
    cuts: dict[str, list[str]] = {}
    for name in trec_names:
        metric = parse_metric(name)
        if metric.cutoff is None:
            cuts.setdefault(name, [])
        else:
            cuts.setdefault(name[:-len(str(metric.cutoff)) - 1], []).append(str(metric.cutoff))
    return [f"{family}.{','.join(cut)}" if cut else family for family, cut in cuts.items()]


def parse_metrics(names: Iterable[str], depth: int) -> dict[str, Metric]:
    """{name: Metric}; ValueError for an unknown name or a cutoff deeper than `depth`."""
    metrics = {name: parse_metric(name) for name in names}
    for name, metric in metrics.items():
        if metric.cutoff is not None and metric.cutoff > depth:
            raise ValueError(f"{name} looks deeper than the evaluation depth {depth}")
    return metrics

UNLIMITED = 2**62  # trec_eval's depth when -M is not given: every document of the run


def scoring_depth(metrics: Iterable[Metric], *, max_depth: int, depth: int | None = None) -> int:
    """How many documents of each query are scored: the one rule of the command line and the platform.

    `depth` when one is set (trec_eval's `-M`). Otherwise every document a run may hold
    (`max_depth`) as soon as one measure reads the whole ranking (AP, RR, nDCG without a
    cutoff, Bpref...), so that those equal `trec_eval -c` on runs of that depth; and when
    every measure has a cutoff, the deepest one, as no document below it changes a value
    (and a run need not be kept deeper than that). A cutoff deeper than the answer is the
    caller's to refuse (`parse_metrics`)."""
    if depth is not None:
        return depth
    cutoffs = [metric.cutoff for metric in metrics]
    if not cutoffs or None in cutoffs:
        return max_depth
    return min(max(c for c in cutoffs if c is not None), max_depth)


def computed_by(engine: str) -> set[str]:
    """The measures that declare `engine` among those that compute them."""
    return {m.name for m in MEASURES.values() if engine in m.engines}


K = TypeVar("K", bound=Callable[..., object])


class Kernels(dict[str, K]):
    """One engine's kernels by measure name: each kernel says which measure it computes with
    `@KERNELS.of("nDCG")`, and `check()` (at the end of the engine's module) refuses a kernel
    for an undeclared measure, or a missing one for a measure that lists the engine, at
    import rather than as a KeyError when a competition first asks for the measure."""

    def __init__(self, engine: str):
        super().__init__()
        self.engine = engine

    def of(self, measure: str) -> Callable[[K], K]:
        def register(kernel: K) -> K:
            self[measure] = kernel
            return kernel
        return register

    def check(self) -> None:
        missing, extra = computed_by(self.engine) - set(self), set(self) - computed_by(self.engine)
        if missing or extra:
            raise RuntimeError(f"the {self.engine} engine's kernels disagree with evaluator.measures: "
                               f"missing {sorted(missing)}, not declared for it {sorted(extra)}")
