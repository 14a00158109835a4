"""Fusion on lists small enough to check by hand.

A ranks q1 a (10), b (5), c (0): min-max gives a 1, b 0.5, c 0. B ranks q1 b, d, a: 1, 0.5, 0.
q2 is only in A, with one hit.
"""
import io

import numpy as np
import pytest

from evaluator.fusion import hybrid_fusion, reciprocal_rank_fusion
from evaluator.io.runs import read_run, write_run
from evaluator.records import Run


def make_run(rows) -> Run:
    return Run(np.array([r[0] for r in rows], dtype=object), np.array([r[1] for r in rows], dtype=object),
               np.array([r[2] for r in rows], dtype=np.float64))


A = make_run([("q1", "c", 0.0), ("q1", "a", 10.0), ("q1", "b", 5.0), ("q2", "x", 3.0)])
B = make_run([("q1", "b", 1.0), ("q1", "d", 0.5), ("q1", "a", 0.0)])


def as_rows(run: Run) -> list[tuple[str, str, float]]:
    return [(q, d, pytest.approx(s)) for q, d, s in zip(run.qids.tolist(), run.docids.tolist(), run.scores.tolist(), strict=True)]


def test_it_mixes_min_max_normalised_scores_with_alpha():
    fused = hybrid_fusion(A, B, alpha=0.3)
    assert fused.tag == "hybrid"
    assert as_rows(fused) == [("q1", "b", 0.85), ("q1", "d", 0.35), ("q1", "a", 0.3), ("q1", "c", 0.0),
                              ("q2", "x", 0.3)]  # a single hit normalises to 1


def test_it_keeps_only_the_depth_of_each_list_and_of_the_result():
    fused = hybrid_fusion(A, B, alpha=0.5, depth=1, tag="h1")
    # only a (from A) and b (from B) take part in q1, each scoring 0.5; docid descending breaks the tie
    assert as_rows(fused) == [("q1", "b", 0.5), ("q2", "x", 0.5)]
    with pytest.raises(ValueError, match="alpha"):
        hybrid_fusion(A, B, alpha=1.5)


def test_it_sums_reciprocal_ranks():
    fused = reciprocal_rank_fusion([A, B], k=60, depth=2)
    assert fused.tag == "rrf"
    assert as_rows(fused) == [("q1", "b", 1 / 62 + 1 / 61), ("q1", "a", 1 / 61), ("q2", "x", 1 / 61)]
    with pytest.raises(ValueError, match="at least one run"):
        reciprocal_rank_fusion([])


def test_it_writes_a_valid_trec_run(tmp_path):
    handle = io.StringIO()
    write_run(reciprocal_rank_fusion([A, B, A], k=10), handle)
    path = tmp_path / "run.rrf.txt"
    path.write_text(handle.getvalue())
    run, report = read_run(path, topics={"q1", "q2"})
    assert report.ok, report.errors
    assert len(run) == 5 and handle.getvalue().splitlines()[0].split()[3] == "1"


def test_it_does_not_change_its_inputs():
    before = A.scores.copy(), A.docids.copy()
    hybrid_fusion(A, B)
    assert (A.scores == before[0]).all() and (A.docids == before[1]).all()
