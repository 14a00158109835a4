"""Scoring on a run small enough to check by hand.

q1's judgments: d1 (label 1), d2 (0), d3 (2). The run ranks q1 as d2, dX, d1, d3: dX and d1
tie at 2.0 and trec_eval breaks ties by docid descending ("dX" > "d1"). q2 is missing
from the run, q3 has no relevant document, q9 is not in the qrels.
"""
import math

import numpy as np
import pytest

from evaluator.engines.scoring import Evaluator
from evaluator.records import Qrels, Run

QRELS = Qrels({"q1": {"d1": 1, "d2": 0, "d3": 2}, "q2": {"d9": 1}, "q3": {"d5": 0}})
ROWS = [("q1", "d3", 1.0), ("q1", "d1", 2.0), ("q9", "d1", 9.0), ("q1", "d2", 3.0), ("q1", "dX", 2.0),
        ("q3", "d5", 1.0)]


def make_run(rows) -> Run:
    return Run(np.array([r[0] for r in rows], dtype=object), np.array([r[1] for r in rows], dtype=object),
               np.array([r[2] for r in rows], dtype=np.float64))


def q1(metrics, **options) -> dict[str, float]:
    result = Evaluator(QRELS, metrics, **options).score(make_run(ROWS))
    return {name: values["q1"] for name, values in result.per_query.items()}


def test_it_ranks_by_score_then_docid_descending():
    assert q1(["RR@10", "P@2", "P@3", "Judged@2", "Success@2", "Success@3"]) == pytest.approx(
        {"RR@10": 1 / 3, "P@2": 0.0, "P@3": 1 / 3, "Judged@2": 0.5, "Success@2": 0.0, "Success@3": 1.0})


def test_it_computes_recall_ap_and_judged_by_hand():
    assert q1(["R@3", "R@4", "AP", "AP@3", "Judged@10", "P@10"]) == pytest.approx(
        {"R@3": 0.5, "R@4": 1.0, "AP": (1 / 3 + 2 / 4) / 2, "AP@3": (1 / 3) / 2, "Judged@10": 0.3, "P@10": 0.2})


def test_it_uses_the_label_as_gain_like_trec_eval_or_two_to_the_label_minus_one():
    ideal = 2 + 1 / math.log2(3)
    label = (1 / math.log2(4) + 2 / math.log2(5)) / ideal
    exp = (1 / math.log2(4) + 3 / math.log2(5)) / (3 + 1 / math.log2(3))
    assert q1(["nDCG@10"]) == pytest.approx({"nDCG@10": label})
    assert q1(["nDCG@10"], gain="exp") == pytest.approx({"nDCG@10": exp})
    assert q1(["nDCG(gain=exp)@10", "nDCG@10"]) == pytest.approx({"nDCG(gain=exp)@10": exp, "nDCG@10": label})
    assert q1(["nDCG@3"]) == pytest.approx({"nDCG@3": (1 / math.log2(4)) / ideal})


def test_it_applies_the_relevance_level_to_binary_metrics_only():
    values = q1(["R@10", "RR@10", "P(rel=1)@10", "nDCG@10"], relevance_level=2)
    assert values["R@10"] == 1.0 and values["RR@10"] == 0.25 and values["P(rel=1)@10"] == 0.2
    assert values["nDCG@10"] == pytest.approx(q1(["nDCG@10"])["nDCG@10"])


def test_it_counts_every_qrels_query_and_ignores_others():
    result = Evaluator(QRELS, ["RR@10", "Judged@10"]).score(make_run(ROWS), subset="sw")
    assert result.subset == "sw"
    assert result.per_query["RR@10"] == {"q1": pytest.approx(1 / 3), "q2": 0.0, "q3": 0.0}
    assert result.means["RR@10"] == pytest.approx(1 / 9)
    assert result.per_query["Judged@10"]["q3"] == pytest.approx(0.1)  # judged, though not relevant


def test_it_cuts_each_query_at_the_depth():
    values = q1(["AP", "R@3", "RR"], depth=3)
    assert values == pytest.approx({"AP": (1 / 3) / 2, "R@3": 0.5, "RR": 1 / 3})
    with pytest.raises(ValueError, match="deeper than the evaluation depth 3"):
        Evaluator(QRELS, ["R@100"], depth=3)


def test_it_scores_an_empty_run_as_zero():
    evaluator = Evaluator(QRELS, ["nDCG@10", "AP"])
    for run in (None, make_run([]), make_run([("q9", "d1", 1.0)])):
        result = evaluator.score(run)
        assert result.means == {"nDCG@10": 0.0, "AP": 0.0}
        assert result.per_query["AP"] == {"q1": 0.0, "q2": 0.0, "q3": 0.0}


def test_it_reuses_one_evaluator_without_touching_the_run():
    evaluator = Evaluator(QRELS, ["RR@10"])
    run = make_run(ROWS)
    before = (run.qids.copy(), run.docids.copy(), run.scores.copy())
    first = evaluator.score(run).means
    assert evaluator.score(make_run([("q2", "d9", 1.0)])).means["RR@10"] == pytest.approx(1 / 3)
    assert evaluator.score(run).means == first
    assert all((a == b).all() for a, b in zip(before, (run.qids, run.docids, run.scores), strict=True))


def test_it_rejects_an_unknown_gain_or_metric():
    with pytest.raises(ValueError, match="gain must be"):
        Evaluator(QRELS, ["nDCG@10"], gain="cube")
    with pytest.raises(ValueError, match="unknown metric"):
        Evaluator(QRELS, ["nDCG@ten"])


def test_it_sorts_when_a_query_is_split_or_a_tie_is_out_of_order():
    evaluator = Evaluator(QRELS, ["RR@10", "P@2"])
    split = [("q1", "d2", 3.0), ("q3", "d5", 1.0), ("q1", "dX", 2.0), ("q1", "d1", 2.0)]
    assert evaluator.score(make_run(split)).per_query["RR@10"]["q1"] == pytest.approx(1 / 3)
    wrong_tie = [("q1", "d1", 2.0), ("q1", "dX", 2.0)]  # trec_eval puts dX first
    assert evaluator.score(make_run(wrong_tie)).per_query["RR@10"]["q1"] == 0.5
    in_order = [("q1", "d1", 3.0), ("q1", "dX", 2.0)]
    assert evaluator.score(make_run(in_order)).per_query["P@2"]["q1"] == 0.5
