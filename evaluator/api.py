"""The evaluator from Python, with DataFrames where IR people work (ir_measures, ranx, PyTerrier).

`evaluate` scores one run, `compare` tests runs against a baseline, `fuse` fuses runs; each
takes paths, dicts or DataFrames (`evaluator.inputs`) and hands back pandas DataFrames.
Nothing is computed here: the readers, the Evaluator, significance.py and fusion.py are the
CLI's, so a value equals what `python -m evaluator score` and `trec_eval -q -c` print.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import pandas as pd

from .inputs import QrelsInput, RunInput, qrels_of, run_of
from .measures import UNLIMITED, parse_metric, scoring_depth
from .records import Problem, Qrels, SubsetResult


@dataclass(frozen=True, eq=False)
class Results:
    """One run's scores. `per_query` is long (query_id, measure, value: one row per judged
    query and measure, queries in trec_eval's order); `aggregates` is each measure over every
    judged query (a query the run lacks counts 0), trec_eval -c's `all`; `warnings` say how
    the run's queries met the judged ones, and what the readers fixed or skipped."""

    per_query: pd.DataFrame
    aggregates: dict[str, float]
    warnings: tuple[Problem, ...] = ()

    @property
    def wide(self) -> pd.DataFrame:
        """One row per query, one column per measure (query_id first)."""
        wide = self.per_query.pivot(index="query_id", columns="measure", values="value")
        wide = wide.reindex(columns=list(self.aggregates)).reset_index()  # reindex: qrels may judge no query
        wide.columns.name = None
        return wide


def _measures(measures: str | Sequence[str]) -> list[str]:
    return [m.strip() for m in measures.split(",")] if isinstance(measures, str) else list(measures)


def _depth(measures: list[str], depth: int | None) -> int:
    """The CLI's rule: `depth` when given, else the deepest cutoff, or every document."""
    return scoring_depth(map(parse_metric, measures), max_depth=UNLIMITED, depth=depth)


def _scored(qrels: Qrels, run: RunInput, measures: list[str], *, relevance_level: int, gain: str,
            depth: int, strict: bool) -> SubsetResult:
    from .engines.scoring import Evaluator

    evaluator = Evaluator(qrels, measures, relevance_level=relevance_level, gain=gain, depth=depth)
    return evaluator.score(run_of(run, depth=depth, strict=strict))


def _results(result: SubsetResult, measures: list[str], warnings: tuple[Problem, ...]) -> Results:
    qids = sorted(next(iter(result.per_query.values()), {}))
    rows = [(q, m, result.per_query[m][q]) for q in qids for m in measures]
    frame = pd.DataFrame(rows, columns=["query_id", "measure", "value"]).astype({"value": "float64"})
    return Results(frame, dict(result.means), (*warnings, *result.warnings))


def evaluate(qrels: QrelsInput, run: RunInput, measures: str | Sequence[str], *, relevance_level: int = 1,
             gain: str = "label", depth: int | None = None, strict: bool = False) -> Results:
    """Score `run` against `qrels` on `measures` ("nDCG@10", "AP", "R@100" or trec_eval's
    names), as `trec_eval -q -c` does: `relevance_level` is `-l`, `depth` is `-M` (default:
    the deepest cutoff, or every document when a measure has none). Paths are read as the
    CLI's generic profile reads them (what trec_eval reads); `strict=True` applies a
    competition's rules. Raises InputError (file, line, problem) on a bad input."""
    names = _measures(measures)
    scoring = _depth(names, depth)
    judged = qrels_of(qrels, strict=strict)
    result = _scored(judged, run, names, relevance_level=relevance_level, gain=gain, depth=scoring, strict=strict)
    return _results(result, names, judged.warnings)


def compare(qrels: QrelsInput, runs: Mapping[str, RunInput], measures: str | Sequence[str], *,
            baseline: str | None = None, test: str = "randomization", trials: int = 10_000, seed: int = 0,
            correction: str = "holm", relevance_level: int = 1, gain: str = "label", depth: int | None = None,
            strict: bool = False) -> pd.DataFrame:
    """Each run of `runs` ({name: run}) against `baseline` (default: the first), per measure,
    with a paired two-sided test over judged queries: `randomization` (seeded) or `t`. One row
    per run and measure: means, difference, p_value, and p_adjusted over the runs tested
    against the baseline on that measure (`correction`: holm, bonferroni or none)."""
    from .significance import adjusted, paired_t_test, randomization_test

    names = _measures(measures)
    scoring = _depth(names, depth)
    judged = qrels_of(qrels, strict=strict)
    results = {name: _scored(judged, run, names, relevance_level=relevance_level, gain=gain, depth=scoring,
                             strict=strict) for name, run in runs.items()}
    if not results:
        raise ValueError("compare needs at least two runs")
    base = baseline if baseline is not None else next(iter(results))
    if base not in results:
        raise ValueError(f"the baseline {base!r} is not one of the runs ({', '.join(results)})")
    if test not in ("randomization", "t"):
        raise ValueError(f"test must be randomization or t, not {test!r}")
    rows = []
    for measure in names:
        reference = results[base].per_query[measure]
        for name, result in results.items():
            if name == base:
                continue
            values = result.per_query[measure]
            outcome = (randomization_test(values, reference, trials=trials, seed=seed) if test == "randomization"
                       else paired_t_test(values, reference))
            rows.append({"run": name, "baseline": base, "measure": measure, "mean": result.means[measure],
                         "baseline_mean": results[base].means[measure], "difference": outcome.mean_difference,
                         "test": outcome.test, "p_value": outcome.p_value})
    frame = pd.DataFrame(rows, columns=["run", "baseline", "measure", "mean", "baseline_mean", "difference",
                                        "test", "p_value"])
    if frame.empty:
        raise ValueError("compare needs at least two runs")
    frame["p_adjusted"] = frame.groupby("measure", sort=False)["p_value"].transform(
        lambda p: pd.Series(adjusted(p.to_numpy(), correction), index=p.index))
    return frame


def fuse(runs: Sequence[RunInput], *, method: str = "rrf", k: int = 60, alpha: float = 0.5, depth: int = 1000,
         strict: bool = False) -> pd.DataFrame:
    """Fuse runs: `rrf` (reciprocal-rank fusion, any number of runs, constant `k`) or `hybrid`
    (MIRACL's BM25 + mDPR: two runs, min-max normalised, weight `alpha` on the first). The
    fused run comes back as a DataFrame (query_id, doc_id, score) in trec_eval's order, cut
    at `depth` per query: what `evaluate` takes as a run."""
    from .fusion import hybrid_fusion, reciprocal_rank_fusion

    parsed = [run_of(run, depth=depth, strict=strict) for run in runs]
    if method == "rrf":
        fused = reciprocal_rank_fusion(parsed, k=k, depth=depth)
    elif method == "hybrid":
        if len(parsed) != 2:
            raise ValueError(f"hybrid fusion takes two runs, not {len(parsed)}")
        fused = hybrid_fusion(parsed[0], parsed[1], alpha=alpha, depth=depth)
    else:
        raise ValueError(f"method must be rrf or hybrid, not {method!r}")
    return pd.DataFrame({"query_id": fused.qids.astype(str), "doc_id": fused.docids.astype(str),
                         "score": fused.scores})
