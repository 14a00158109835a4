"""A second engine agrees: every metric, query by query, equals pytrec_eval to 1e-9 on the
real MIRACL and Mr. TyDi qrels.

pytrec_eval is NOT an exact reference: it wraps trec_eval's C code but stores scores as
32-bit floats, so scores closer than float32 can tell apart become ties (issue 16, item 8).
Here every score is a multiple of 1/4, exact in float32, so exact agreement is expected;
the exact reference is trec_eval itself (test_trec_eval_differential.py). Queries
pytrec_eval does not return (missing from the run) are filled with 0, which is trec_eval -c. Runs are generated from the qrels
with a fixed seed: relevant, judged non-relevant and unjudged documents, tied scores,
missing queries and queries outside the qrels.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import pytrec_eval

from evaluator.engines.scoring import Evaluator
from evaluator.records import Qrels, Run

METRICS = ["nDCG@10", "nDCG@3", "R@100", "R@5", "RR@100", "RR@10", "AP", "AP@10", "P@10",
           "Success@10", "R@1", "Judged@10", "P(rel=2)@5"]
DEPTH = 100


def read_qrels_file(path: Path) -> dict[str, dict[str, int]]:
    judgments: dict[str, dict[str, int]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        qid, _, docid, label = line.split()
        judgments.setdefault(qid, {})[docid] = int(label)
    return judgments


def generated_run(judgments: dict[str, dict[str, int]], *, seed: int, max_len: int = 40) -> dict:
    """A seeded run: per query a mix of its judged documents, unjudged ones and ties."""
    rng = np.random.default_rng(seed)
    run: dict[str, dict[str, float]] = {}
    qids = list(judgments) + [f"x{i}" for i in range(3)]  # x*: not in the qrels
    for qid in qids:
        if rng.random() < 0.07:
            continue  # a query the run misses
        judged = list(judgments.get(qid, {}))
        length = int(rng.integers(0, max_len + 1))
        picked = [d for d in judged if rng.random() < 0.6]
        picked += [f"{rng.integers(1, 10**6)}#{rng.integers(0, 9)}" for _ in range(length)]
        docs = list(dict.fromkeys(picked))[:max_len]
        # coarse scores: ties are frequent, so the docid tie-break matters
        run[qid] = {d: float(rng.integers(0, 12)) / 4 for d in docs}
    return run


def as_run(run: dict[str, dict[str, float]], *, shuffled: bool = True) -> Run:
    """Rows shuffled (the engine sorts), or in trec order as read_run gives them (it skips the sort)."""
    if shuffled:
        rows = [(q, d, s) for q, docs in run.items() for d, s in docs.items()]
        rows = [rows[i] for i in np.random.default_rng(1).permutation(len(rows))]
    else:
        rows = [(q, d, docs[d]) for q, docs in run.items() for d in trec_order(docs)]
    return Run(np.array([r[0] for r in rows], dtype=object), np.array([r[1] for r in rows], dtype=object),
               np.array([r[2] for r in rows], dtype=np.float64))


def trec_order(docs: dict[str, float]) -> list[str]:
    return [d for d, _ in sorted(docs.items(), key=lambda x: (x[1], x[0]), reverse=True)]


def cut(run: dict, k: int) -> dict:
    return {q: {d: docs[d] for d in trec_order(docs)[:k]} for q, docs in run.items()}


def reference(judgments: dict, run: dict, metric: str) -> dict[str, float]:
    """pytrec_eval's value of `metric` for every qrels query (0 when the run misses it)."""
    run = cut(run, DEPTH)
    name, _, k = metric.partition("@")
    level, qrels = 1, judgments
    if name == "RR":
        measure, run = "recip_rank", cut(run, int(k))
    elif name == "Judged":
        # Judged@k is P@k where every judgment counts as relevant
        measure, qrels = f"P_{k}", {q: {d: 1 for d in docs} for q, docs in judgments.items()}
    elif name == "nDCG(gain=exp)":
        measure = f"ndcg_cut_{k}"
        qrels = {q: {d: 2 ** max(v, 0) - 1 for d, v in docs.items()} for q, docs in judgments.items()}
    else:
        if name.startswith("P(rel="):
            name, level = "P", int(name[6:-1])
        measure = {"nDCG": "ndcg_cut_{}", "R": "recall_{}", "AP": "map_cut_{}" if k else "map",
                   "P": "P_{}", "Success": "success_{}"}[name].format(k)
    values = pytrec_eval.RelevanceEvaluator(qrels, {measure}, relevance_level=level).evaluate(run)
    return {qid: values.get(qid, {}).get(measure, 0.0) for qid in judgments}


def assert_agrees(judgments: dict, run: dict, metrics=METRICS, *, shuffled: bool = True) -> None:
    result = Evaluator(Qrels(judgments), metrics, depth=DEPTH).score(as_run(run, shuffled=shuffled))
    for metric in metrics:
        expected = reference(judgments, run, metric)
        got = result.per_query[metric]
        assert got.keys() == expected.keys()
        worst = max(abs(got[q] - expected[q]) for q in expected)
        assert worst <= 1e-9, f"{metric}: off by {worst}"
        assert result.means[metric] == pytest.approx(sum(expected.values()) / len(expected), abs=1e-12)


@pytest.mark.parametrize("shuffled", [True, False])
def test_it_agrees_on_generated_graded_qrels(shuffled):
    rng = np.random.default_rng(7)
    judgments = {str(q): {f"{rng.integers(1, 50)}#{j}": int(rng.integers(-1, 4)) for j in range(12)}
                 for q in range(300)}
    judgments["empty-ish"] = {"1#1": 0}  # a query with no relevant document still counts
    run = generated_run(judgments, seed=3, max_len=120)  # longer than DEPTH: the cut matters
    assert_agrees(judgments, run, METRICS + ["nDCG(gain=exp)@10"], shuffled=shuffled)


MIRACL = ["ar", "bn", "de", "en", "es", "fa", "fi", "fr", "hi", "id", "ja", "ko", "ru", "sw", "te", "th",
          "yo", "zh"]
MRTYDI = ["ar", "bn", "en", "fi", "id", "ja", "ko", "ru", "sw", "te", "th"]


@pytest.mark.shared_data
@pytest.mark.parametrize("lang", MIRACL)
def test_it_agrees_on_miracl_dev(shared_data, lang):
    judgments = read_qrels_file(shared_data / "miracl-v1.0-dev" / f"qrels.miracl-v1.0-{lang}-dev.tsv")
    assert_agrees(judgments, generated_run(judgments, seed=MIRACL.index(lang), max_len=15),
                  shuffled=lang != "sw")


@pytest.mark.shared_data
@pytest.mark.parametrize("lang", MRTYDI)
def test_it_agrees_on_mrtydi_test(shared_data, lang):
    judgments = read_qrels_file(shared_data / "mrtydi-v1.1-test" / f"qrels.mrtydi-v1.1-{lang}.test.txt")
    assert_agrees(judgments, generated_run(judgments, seed=100 + MRTYDI.index(lang), max_len=15))
