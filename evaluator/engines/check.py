"""`--check`: every score recomputed by a second engine, pytrec_eval, and compared.

pytrec_eval wraps trec_eval's C code but keeps run scores as 32-bit floats, so two scores
closer than float32 tells apart become a tie there and may swap places (issue 16, item 8:
scores 1.0 and 1.00000001 give RR 1.0 in trec_eval, 0.5 in pytrec_eval). A fixed
tolerance cannot absorb that: one swap moves RR by 0.5. So both engines are given the
same input, the run with its scores rounded to float32, and must then agree to 1e-9;
where the rounding itself changes a value (ties float32 makes) that is reported apart,
as a warning, with the exact value kept. pytrec_eval runs in a child process: it has
crashed on some negative labels and hung, and neither may take the scoring down with it.
"""
from __future__ import annotations

import multiprocessing
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass

import numpy as np

from ..measures import PYTREC, parse_metric, trec_eval_measures, trec_name
from ..records import Problem, Qrels, Run
from .scoring import Evaluator
from .summary import summary

TOLERANCE = 1e-9
# pytrec_eval's inputs and answer: {qid: {docid: label}}, {qid: {docid: score}}, {qid: {measure: value}}
Judged = dict[str, dict[str, int]]
Ranking = dict[str, dict[str, float]]
Answer = dict[str, dict[str, float]]
TIMEOUT = 300  # seconds pytrec_eval may take for one subset


class SecondEngineFailed(Exception):
    """pytrec_eval could not give its answer (not installed, crashed or hung)."""


@dataclass(frozen=True)
class SecondOpinion:
    """Per-query values of one run on one subset from both engines, per metric that has a
    trec_eval measure, in qrels order (`Evaluator.index.qids`)."""

    theirs: dict[str, np.ndarray]   # pytrec_eval, scores as float32
    ours: dict[str, np.ndarray]     # the evaluator, scores as float32 (the same input)
    exact: dict[str, np.ndarray]    # the evaluator, scores as given (what is stored and shown)
    unchecked: tuple[str, ...]      # metrics with no trec_eval measure

    def means(self, evaluator: Evaluator) -> dict[str, tuple[float, float, float]]:
        """{metric: (pytrec_eval, evaluator on float32, evaluator exact)}, each summarised
        over every judged query as the stored scores are (a query the run omits counts 0)."""
        def mean(values: dict[str, np.ndarray], name: str) -> float:
            return summary(evaluator.metrics[name], evaluator.index.qids, values[name].tolist())
        return {name: (mean(self.theirs, name), mean(self.ours, name), mean(self.exact, name)) for name in self.theirs}


def second_opinion(evaluator: Evaluator, qrels: Qrels, run: Run | None) -> SecondOpinion:
    """Score `run` (None: no run, 0 everywhere) with both engines; raises SecondEngineFailed."""
    names = {name: trec for name, metric in evaluator.metrics.items()
             if (trec := trec_name(metric)) and PYTREC in metric.measure.engines}
    unchecked = tuple(name for name in evaluator.metrics if name not in names)
    rounded = None if run is None else \
        Run(run.qids, run.docids, run.scores.astype(np.float32).astype(np.float64), run.tag)
    run_dict: dict[str, dict[str, float]] = {}
    if run is not None and rounded is not None:
        for qid, docid, score in zip(run.qids.tolist(), run.docids.tolist(), rounded.scores.tolist(), strict=True):
            run_dict.setdefault(qid, {})[docid] = score
    theirs: Answer = {}
    if names and run_dict:
        qrels_dict = {q: dict(d) for q, d in qrels.judgments.items()}
        try:
            theirs = _in_child(qrels_dict, run_dict, sorted(set(names.values())), evaluator.relevance_level)
        except (BrokenProcessPool, FutureTimeout, ImportError) as exc:
            why = "is not installed (pip install pytrec-eval-terrier)" if isinstance(exc, ImportError) else \
                "crashed or hung (it has on some negative labels)"
            raise SecondEngineFailed(f"pytrec_eval {why}") from exc
    qids = evaluator.index.qids
    ours, exact = evaluator.per_query_arrays(rounded), evaluator.per_query_arrays(run)
    return SecondOpinion(
        theirs={name: np.array([theirs.get(q, {}).get(trec, 0.0) for q in qids], dtype=np.float64)
                for name, trec in names.items()},
        ours={name: ours[name] for name in names}, exact={name: exact[name] for name in names}, unchecked=unchecked)


def _why_unchecked(name: str) -> str:
    trec = trec_name(parse_metric(name))
    if trec is None:
        return f"{name} has no trec_eval measure; pytrec_eval cannot check it"
    return f"{name} is trec_eval 10's {trec}, which pytrec_eval (trec_eval 9) lacks"


def check_with_pytrec_eval(evaluator: Evaluator, qrels: Qrels, run: Run, *, file: str) -> list[Problem]:
    """Problems (errors: engines disagree or pytrec_eval failed; warnings: float32 ties,
    metrics pytrec_eval lacks) from scoring `run` with both engines."""
    try:
        opinion = second_opinion(evaluator, qrels, run)
    except SecondEngineFailed as exc:
        return [Problem("check-failed", f"the check could not run: {exc}", file)]
    found = [Problem("check-skipped", _why_unchecked(name), file, severity="warning") for name in opinion.unchecked]
    qids = evaluator.index.qids
    ours, exact = opinion.ours, opinion.exact
    for name, other in opinion.theirs.items():
        worst = int(np.argmax(np.abs(ours[name] - other))) if len(qids) else 0
        if len(qids) and abs(ours[name][worst] - other[worst]) > TOLERANCE:
            found.append(Problem("check-differs", f"{name}: pytrec_eval gives {float(other[worst])!r} for query "
                                 f"{qids[worst]!r}, the evaluator {float(ours[name][worst])!r} (scores as float32)", file))
        moved = int(np.count_nonzero(np.abs(exact[name] - ours[name]) > TOLERANCE))
        if moved:
            found.append(Problem("check-float32-ties", f"{name}: {moved} queries change when scores are rounded "
                                 "to float32 as pytrec_eval keeps them; the exact (float64) values stand", file,
                                 severity="warning"))
    return found


def _in_child(qrels: Judged, run: Ranking, measures: list[str], relevance_level: int) -> Answer:
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("fork")) as pool:
        return pool.submit(_evaluate, qrels, run, measures, relevance_level).result(timeout=TIMEOUT)


def _evaluate(qrels: Judged, run: Ranking, measures: list[str], relevance_level: int) -> Answer:
    import pytrec_eval

    # asked as `ndcg_cut.5,10`, answered as `ndcg_cut_5` and `ndcg_cut_10`
    asked = set(trec_eval_measures(measures))
    answer: Answer = pytrec_eval.RelevanceEvaluator(qrels, asked, relevance_level=relevance_level).evaluate(run)
    return answer
