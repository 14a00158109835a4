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

import numpy as np

from .metric_names import parse_metric, trec_name
from .records import Problem, Qrels, Run
from .scoring import Evaluator

TOLERANCE = 1e-9
# trec_eval 10 measures pytrec_eval (built on trec_eval 9) does not have.
PYTREC_LACKS = ("unj_",)
TIMEOUT = 300  # seconds pytrec_eval may take for one subset


def check_with_pytrec_eval(evaluator: Evaluator, qrels: Qrels, run: Run, *, file: str) -> list[Problem]:
    """Problems (errors: engines disagree or pytrec_eval failed; warnings: float32 ties,
    metrics pytrec_eval lacks) from scoring `run` with both engines."""
    names = {name: trec_name(parse_metric(name)) for name in evaluator.metrics}
    found = [Problem("check-skipped", f"{name} has no trec_eval measure; pytrec_eval cannot check it", file,
                     severity="warning") for name, trec in names.items() if trec is None]
    found += [Problem("check-skipped", f"{name} is trec_eval 10's {trec}, which pytrec_eval (trec_eval 9) lacks", file,
                      severity="warning") for name, trec in names.items() if trec and trec.startswith(PYTREC_LACKS)]
    names = {name: trec for name, trec in names.items() if trec is not None and not trec.startswith(PYTREC_LACKS)}
    if not names:
        return found
    rounded = Run(run.qids, run.docids, run.scores.astype(np.float32).astype(np.float64), run.tag)
    ours = evaluator.per_query_arrays(rounded)
    exact = evaluator.per_query_arrays(run)
    qrels_dict = {q: dict(d) for q, d in qrels.judgments.items()}
    run_dict: dict[str, dict[str, float]] = {}
    for qid, docid, score in zip(run.qids.tolist(), run.docids.tolist(), rounded.scores.tolist()):
        run_dict.setdefault(qid, {})[docid] = score
    try:
        theirs = _in_child(qrels_dict, run_dict, sorted(set(names.values())), evaluator.relevance_level)
    except (BrokenProcessPool, FutureTimeout, ImportError) as exc:
        why = "is not installed (pip install pytrec-eval-terrier)" if isinstance(exc, ImportError) else \
            "crashed or hung (it has on some negative labels)"
        return [*found, Problem("check-failed", f"the check could not run: pytrec_eval {why}", file)]
    qids = evaluator.index.qids
    for name, trec in names.items():
        other = np.array([theirs.get(q, {}).get(trec, 0.0) for q in qids])
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


def _in_child(qrels: dict, run: dict, measures: list[str], relevance_level: int) -> dict:
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("fork")) as pool:
        return pool.submit(_evaluate, qrels, run, measures, relevance_level).result(timeout=TIMEOUT)


def _evaluate(qrels: dict, run: dict, measures: list[str], relevance_level: int) -> dict:
    import pytrec_eval

    # `ndcg_cut_10` is asked as `ndcg_cut.10` and answered as `ndcg_cut_10`; cutoffs of one
    # measure go together (`ndcg_cut.5,10`), as a second `ndcg_cut.10` would replace the first
    cuts: dict[str, list[str]] = {}
    for m in measures:
        family, _, cut = m.rpartition("_") if m[-1].isdigit() else (m, "", "")
        cuts.setdefault(family, []).extend([cut] if cut else [])
    asked = {f"{family}.{','.join(cut)}" if cut else family for family, cut in cuts.items()}
    return pytrec_eval.RelevanceEvaluator(qrels, asked, relevance_level=relevance_level).evaluate(run)
