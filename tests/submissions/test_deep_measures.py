"""A competition with deep measures (AP, uncut nDCG, R@1000) and runs of depth 1000 stores the
values `trec_eval -c` gives on the same files (trec_eval 10 built from its source): the
scoring depth follows the measures and max_run_depth (Competition.scored_depth)."""
import subprocess
from pathlib import Path

import pytest

from cupboard.submissions.models import QueryScores, Score
from cupboard.submissions.scoring import submission_score
from cupboard.submissions.services import submission_create
from evaluator.io.qrels import read_qrels
from evaluator.measures import trec_eval_measures
from evaluator.synthetic import run_over_qrels
from tests.factories import make_competition, make_qrels_release, make_team, make_topics, make_user, qrels_text
from tests.waiting import PATIENCE

from .conftest import upload

SAMPLE = Path(__file__).resolve().parents[1] / "data" / "qrels.miracl-v1.0-sw-dev.tsv"
METRICS = {"nDCG@10": "ndcg_cut_10", "AP": "map", "nDCG": "ndcg", "R@1000": "recall_1000", "RR": "recip_rank"}


def _trec_eval(binary: Path, files: Path, *depth: str) -> dict[tuple[str, str], float]:
    """{(trec_eval name, qid or "all"): value} of `trec_eval -q -c` (and `-M N` when given)."""
    measures = [arg for m in trec_eval_measures(METRICS.values()) for arg in ("-m", m)]
    done = subprocess.run([str(binary), "-q", "-c", *depth, *measures, str(files / "qrels"), str(files / "run")],
                          capture_output=True, check=True, timeout=PATIENCE)
    values = {}
    for line in done.stdout.decode().splitlines():
        measure, qid, value = line.split("\t")
        values[measure.strip(), qid] = float(value)
    return values


def _scored(tmp_path: Path, qrels: Path = SAMPLE, **fields):
    """(competition, {metric: mean}, {metric: {qid: value}}) of a depth-1000 run over `qrels`
    (the shipped MIRACL sample), uploaded and scored; its files are written to `tmp_path` for trec_eval."""
    judgments = read_qrels(qrels).judgments
    run = run_over_qrels(judgments, depth=1000, seed=3)
    (tmp_path / "qrels").write_bytes(qrels_text(judgments))
    (tmp_path / "run").write_text(run)
    competition = make_competition(known=["sw"], surprise=(), max_run_depth=1000, **{"metrics": list(METRICS), **fields})
    dev = competition.phases.get(slug="dev")
    make_topics(dev, "sw", sorted(judgments))
    make_qrels_release(dev, {"sw": judgments})
    user = make_user()
    submission = submission_create(phase=dev, team=make_team(competition, members=[user]), user=user,
                                   method_name="deep", files=[(upload("run.sw.txt", run.encode()), None)])
    assert submission_score(submission_id=submission.pk) == "scored"
    means = {s.metric: s.value for s in Score.objects.filter(submission=submission)}
    return competition, means, QueryScores.objects.get(submission=submission).values


def _assert_equal(means: dict, per_query: dict, expected: dict) -> None:
    for metric, trec in METRICS.items():
        assert means[metric] == pytest.approx(expected[trec, "all"], abs=1e-12), metric
        for (name, qid), value in expected.items():
            if name == trec and qid != "all":
                assert per_query[metric][qid] == pytest.approx(value, abs=1e-12), (metric, qid)


@pytest.mark.django_db
def test_it_stores_what_trec_eval_c_gives_on_a_depth_1000_run(trec_eval, tmp_path):
    competition, means, per_query = _scored(tmp_path)
    assert competition.scored_depth() == 1000
    _assert_equal(means, per_query, _trec_eval(trec_eval, tmp_path))
    # Judged documents sit below rank 100: the former fixed depth of 100 gave other values.
    cut = _trec_eval(trec_eval, tmp_path, "-M", "100")
    assert all(means[m] > cut[METRICS[m], "all"] for m in ("AP", "nDCG", "R@1000"))


@pytest.mark.django_db
@pytest.mark.shared_data
def test_it_stores_what_trec_eval_c_gives_on_miracl_dev(trec_eval, shared_data, tmp_path):
    qrels = shared_data / "miracl-v1.0-dev" / "qrels.miracl-v1.0-sw-dev.tsv"
    _, means, per_query = _scored(tmp_path, qrels)
    _assert_equal(means, per_query, _trec_eval(trec_eval, tmp_path))


@pytest.mark.django_db
def test_a_set_scoring_depth_cuts_the_runs_as_trec_eval_m(trec_eval, tmp_path):
    competition, means, per_query = _scored(tmp_path, metrics=["nDCG@10", "AP", "nDCG", "RR"], scoring_depth=100)
    assert competition.scored_depth() == 100
    expected = _trec_eval(trec_eval, tmp_path, "-M", "100")
    for metric in ("AP", "nDCG", "RR", "nDCG@10"):
        assert means[metric] == pytest.approx(expected[METRICS[metric], "all"], abs=1e-12), metric
