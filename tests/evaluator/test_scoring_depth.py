"""The scoring depth, one rule (evaluator.measures.scoring_depth), and deep measures equal to
`trec_eval -c` on runs of that depth: AP, uncut nDCG and R@1000 on a depth-1000 run, against
trec_eval 10 built from its source, on the shipped MIRACL sample and on the MIRACL dev qrels."""
from __future__ import annotations

import contextlib
import io
import subprocess
from pathlib import Path

import pytest

from evaluator.cli import main
from evaluator.io.qrels import read_qrels
from evaluator.measures import parse_metric, scoring_depth, trec_eval_measures
from evaluator.synthetic import run_over_qrels
from tests.waiting import PATIENCE

SAMPLE = Path(__file__).resolve().parents[1] / "data" / "qrels.miracl-v1.0-sw-dev.tsv"
MEASURES = ("AP", "nDCG", "R@1000", "R@100", "nDCG@10", "RR")
TREC = ("map", "ndcg", "recall_1000", "recall_100", "ndcg_cut_10", "recip_rank")


def _depth(names, **kwargs) -> int:
    return scoring_depth([parse_metric(n) for n in names], **kwargs)


def test_it_scores_to_the_deepest_cutoff_when_every_measure_has_one():
    assert _depth(["nDCG@10", "R@100"], max_depth=1000) == 100
    assert _depth(["nDCG@10", "R@1000"], max_depth=1000) == 1000


def test_it_scores_whole_runs_when_a_measure_has_no_cutoff():
    assert _depth(["nDCG@10", "AP"], max_depth=1000) == 1000
    assert _depth(["nDCG"], max_depth=250) == 250
    assert _depth(["Bpref"], max_depth=1000) == 1000


def test_a_set_depth_wins_and_the_runs_bound_the_derived_one():
    assert _depth(["AP", "R@100"], max_depth=1000, depth=100) == 100
    assert _depth(["R@1000"], max_depth=100) == 100  # too deep: the caller refuses it (parse_metrics)


def _parse(text: str) -> dict[tuple[str, str], float]:
    values = {}
    for line in text.splitlines():
        measure, qid, value = line.split("\t")
        values[measure.strip(), qid] = float(value)
    return values


def _trec_eval_c(binary: Path, qrels: Path, run: Path, *extra: str) -> dict:
    measures = [arg for m in trec_eval_measures(TREC) for arg in ("-m", m)]
    done = subprocess.run([str(binary), "-q", "-c", *extra, *measures, str(qrels), str(run)],
                          capture_output=True, check=True, timeout=PATIENCE)
    return _parse(done.stdout.decode())


def _ours(qrels: Path, run: Path, *extra: str) -> dict:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["score", "--benchmark", "miracl", "--qrels", f"sw={qrels}", "--run", f"sw={run}",
                     "--metrics", ",".join(MEASURES), "--format", "trec", "--digits", "17", "--workers", "1",
                     *extra])
    assert code == 0
    return _parse(out.getvalue())


def _check(trec_eval, qrels: Path, tmp_path: Path) -> None:
    run = tmp_path / "run.sw.txt"
    run.write_text(run_over_qrels(read_qrels(qrels).judgments, depth=1000, seed=7))
    expected, got = _trec_eval_c(trec_eval, qrels, run), _ours(qrels, run)
    assert got.keys() == expected.keys()
    wrong = {k: (got[k], expected[k]) for k in got if abs(got[k] - expected[k]) > 1e-12}
    assert not wrong, f"{len(wrong)} values differ from trec_eval -c, e.g. {list(wrong.items())[:3]}"
    # The run reaches below 100, so cutting it there (the old fixed depth) would give other values.
    cut = _trec_eval_c(trec_eval, qrels, run, "-M", "100")
    for measure in ("map", "ndcg", "recall_1000"):
        assert got[measure, "all"] > cut[measure, "all"], measure


def test_deep_measures_equal_trec_eval_on_the_shipped_sample(trec_eval, tmp_path):
    _check(trec_eval, SAMPLE, tmp_path)


@pytest.mark.shared_data
def test_deep_measures_equal_trec_eval_on_miracl_dev(trec_eval, shared_data, tmp_path):
    _check(trec_eval, shared_data / "miracl-v1.0-dev" / "qrels.miracl-v1.0-sw-dev.tsv", tmp_path)
