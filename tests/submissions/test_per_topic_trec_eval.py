"""A test phase's per-topic report, once its hidden judgments are public, agrees with
`trec_eval -q -c` (trec_eval 10 built from its source) run on the same qrels and run files:
the run's value per topic, and the best, median and worst of the four runs' trec_eval values."""
import csv
import io
import subprocess
from datetime import timedelta
from pathlib import Path
from statistics import median

import pytest
import time_machine
from django.urls import reverse

from cupboard.competitions.models import Phase
from cupboard.submissions.scoring import submission_score
from cupboard.submissions.services import submission_create
from evaluator.io.qrels import read_qrels
from evaluator.synthetic import run_over_qrels
from tests.factories import make_competition, make_qrels_release, make_team, make_topics, make_user, qrels_text
from tests.personas import client_for
from tests.waiting import PATIENCE

from .conftest import upload

SAMPLE = Path(__file__).resolve().parents[1] / "data" / "qrels.miracl-v1.0-sw-dev.tsv"


def _trec_eval(binary: Path, qrels: Path, run: Path) -> dict[str, float]:
    """{qid: ndcg_cut_10} of `trec_eval -q -c`."""
    done = subprocess.run([str(binary), "-q", "-c", "-m", "ndcg_cut.10", str(qrels), str(run)],
                          capture_output=True, check=True, timeout=PATIENCE)
    values = {}
    for line in done.stdout.decode().splitlines():
        measure, qid, value = line.split("\t")
        if measure.strip() == "ndcg_cut_10" and qid != "all":
            values[qid] = float(value)
    return values


def _report(qrels_path: Path, binary: Path, tmp_path: Path) -> None:
    judgments = read_qrels(qrels_path).judgments
    (tmp_path / "qrels").write_bytes(qrels_text(judgments))
    organizer = make_user()
    competition = make_competition(known=["sw"], surprise=(), organizers=[organizer])
    test_b = competition.phases.get(slug="test-b")
    Phase.objects.filter(pk=test_b.pk).update(before_reveal=Phase.BeforeReveal.STATUS)
    make_topics(test_b, "sw", sorted(judgments))
    make_qrels_release(test_b, {"sw": judgments})
    expected, runs = [], []
    for seed in range(4):  # an even count of runs: the median is the mean of the middle two
        user = make_user()
        run = run_over_qrels(judgments, depth=20, seed=seed, found=0.6)
        (tmp_path / f"run{seed}").write_text(run)
        expected.append(_trec_eval(binary, tmp_path / "qrels", tmp_path / f"run{seed}"))
        submission = submission_create(phase=test_b, team=make_team(competition, members=[user]), user=user,
                                       method_name=f"run {seed}", files=[(upload("run.sw.txt", run.encode()), None)])
        assert submission_score(submission_id=submission.pk) == "scored"
        runs.append((user, submission))
    # the runs differ on some topics, so best, median and worst are three figures there
    assert any(len({e[qid] for e in expected}) > 2 for qid in expected[0])
    user, mine = runs[0]
    url = reverse("submissions:per_topic_csv", args=[mine.pk])
    assert client_for(user).get(url).status_code == 404  # the judgments are hidden until the reveal
    organizer_rows = list(csv.DictReader(io.StringIO(client_for(organizer).get(url).content.decode())))
    with time_machine.travel(test_b.reveal_at + timedelta(seconds=1)):
        response = client_for(user).get(url)
    assert response.status_code == 200
    team_rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    digits = competition.decimals
    for rows, exact in ((organizer_rows, True), (team_rows, False)):
        by_topic = {r["topic"]: r for r in rows if r["measure"] == "nDCG@10"}
        assert set(by_topic) == set(expected[0])
        for qid, value in expected[0].items():
            found = [e[qid] for e in expected]
            want = {"run": value, "best": max(found), "median": median(found), "worst": min(found)}
            for column, number in want.items():
                got = float(by_topic[qid][column])
                assert got == (pytest.approx(number, abs=1e-12) if exact else round(number, digits)), (qid, column)


@pytest.mark.django_db
def test_it_agrees_with_trec_eval_per_topic_on_the_sample(trec_eval, tmp_path):
    _report(SAMPLE, trec_eval, tmp_path)


@pytest.mark.django_db
@pytest.mark.shared_data
def test_it_agrees_with_trec_eval_per_topic_on_miracl_sw_dev(trec_eval, shared_data, tmp_path):
    _report(shared_data / "miracl-v1.0-dev" / "qrels.miracl-v1.0-sw-dev.tsv", trec_eval, tmp_path)
