"""The multi-round campaign of docs/campaign.md, stood up from the shipped example definition
(`definitions/examples/trec-covid-like.yaml`) and the synthetic rounds in tests/data/campaign/:
TREC XML topics per round, a document list, per-round judgments. Every stored value of rounds
2 and 3 equals `trec_eval -q -c` on the run filtered of the earlier rounds' judged documents; a
run naming a document outside the collection is refused at its line; round 2's pool holds no
document judged in round 1; the topics download byte for byte."""
import io
import random
import subprocess
import zipfile
from datetime import timedelta
from pathlib import Path

import pytest
import time_machine
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from cupboard.competitions.definition import EXAMPLES_DIR
from cupboard.competitions.document_lists import document_list_create
from cupboard.competitions.services import competition_load, qrels_release_create
from cupboard.competitions.topic_files import topics_import
from cupboard.judging.pools import pool_export_build, pool_export_create
from cupboard.submissions.errors import SubmissionRefused
from cupboard.submissions.models import QueryScores, Score
from cupboard.submissions.scoring import submission_score
from cupboard.submissions.services import submission_create
from tests.factories import make_team, make_user
from tests.personas import client_for

pytestmark = pytest.mark.django_db
DATA = Path(__file__).resolve().parents[1] / "data" / "campaign"
MEASURES = {"ndcg_cut_10": "nDCG@10", "P_5": "P@5", "map": "AP", "bpref": "Bpref"}
TOLERANCE = 1e-12


def judged(*rounds: int) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for k in rounds:
        for line in (DATA / f"qrels-round{k}.txt").read_text().splitlines():
            qid, _, docid, _ = line.split()
            found.setdefault(qid, set()).add(docid)
    return found


def a_run(qids: list[str], seed: int, earlier_rounds: tuple[int, ...] = (1, 2)) -> str:
    """A run that ranks earlier rounds' judged documents near the top, as rounds 2+ runs did."""
    rng = random.Random(seed)
    docs = (DATA / "documents.txt").read_text().split()
    earlier = judged(*earlier_rounds)
    lines = []
    for qid in qids:
        ranking = sorted(earlier.get(qid, ())) + [d for d in rng.sample(docs[:250], 120) if d not in earlier.get(qid, ())]
        rng.shuffle(ranking[: len(earlier.get(qid, ())) + 10])
        lines += [f"{qid} Q0 {d} {r} {200 - r}.25 campaign\n" for r, d in enumerate(dict.fromkeys(ranking), 1)]
    return "".join(lines)


def trec_eval_values(binary, qrels: Path, run: Path) -> dict:
    args = [a for m in ("ndcg_cut.10", "P.5", "map", "bpref") for a in ("-m", m)]
    done = subprocess.run([str(binary), "-q", "-c", *args, str(qrels), str(run)], capture_output=True, check=True,
                          timeout=60)
    values = {}
    for line in done.stdout.decode().splitlines():
        measure, qid, value = line.split("\t")
        values[MEASURES[measure.strip()], qid] = float(value)
    return values


@pytest.fixture
def campaign():
    competition = competition_load(data=EXAMPLES_DIR / "trec-covid-like.yaml")
    rounds = {k: competition.phases.get(slug=f"round-{k}") for k in (1, 2, 3)}
    docs = competition.subsets.get(code="docs")
    document_list_create(competition=competition, subset=docs, path=DATA / "documents.txt")
    for k, phase in rounds.items():
        name = f"topics-round{k}.xml"
        topics_import(phase=phase, subset=docs, file=SimpleUploadedFile(name, (DATA / name).read_bytes()), name=name)
        qrels_release_create(phase=phase, files={"docs": (DATA / f"qrels-round{k}.txt").read_bytes()}, actor=None)
    user = make_user()
    team = make_team(competition, members=[user])
    return competition, rounds, team, user


def submitted(phase, team, user, text: str, name: str = "run.docs.txt"):
    with time_machine.travel(phase.opens_at + timedelta(days=1)):
        return submission_create(phase=phase, team=team, user=user, method_name=name,
                                 files=[(SimpleUploadedFile(name, text.encode()), None)])


@pytest.mark.parametrize("k, earlier", [(2, (1,)), (3, (1, 2))])
def test_rounds_are_scored_on_the_residual_collection_as_trec_eval(campaign, trec_eval, tmp_path, k, earlier):
    _, rounds, team, user = campaign
    qids = sorted(judged(k))
    run_text = a_run(qids, seed=k)
    submission = submitted(rounds[k], team, user, run_text)
    assert submission_score(submission_id=submission.pk) == "scored"
    gone = judged(*earlier)
    (tmp_path / "residual").write_text("".join(line + "\n" for line in run_text.splitlines()
                                               if line.split()[2] not in gone.get(line.split()[0], ())))
    expected = trec_eval_values(trec_eval, DATA / f"qrels-round{k}.txt", tmp_path / "residual")
    means = dict(Score.objects.filter(submission=submission).values_list("metric", "value"))
    assert set(means) == set(MEASURES.values())
    for metric, value in means.items():
        assert value == pytest.approx(expected[metric, "all"], abs=TOLERANCE), metric
    per_query = QueryScores.objects.get(submission=submission)
    assert sum(len(v) for v in per_query.values.values()) == 4 * len(qids)
    for metric, values in per_query.values.items():
        for qid, value in values.items():
            assert value == pytest.approx(expected[metric, qid], abs=TOLERANCE), (metric, qid)
    assert per_query.removed and all(set(d) <= gone[q] for q, d in per_query.removed.items())


def test_a_run_naming_a_document_outside_the_collection_is_refused_at_its_line(campaign):
    _, rounds, team, user = campaign
    text = a_run(["1", "2"], seed=5).splitlines()
    text[6] = text[6].replace(text[6].split()[2], "doc9999")
    with pytest.raises(SubmissionRefused) as refused:
        submitted(rounds[2], team, user, "\n".join(text) + "\n")
    problem = refused.value.problems[0]
    assert (problem.file, problem.line, problem.code) == ("run.docs.txt", 7, "unknown-docid")


def test_round_two_pools_no_document_judged_in_round_one(campaign):
    competition, rounds, team, user = campaign
    submission = submitted(rounds[2], team, user, a_run(["1", "2", "3", "4"], seed=9, earlier_rounds=(1,)))
    assert submission_score(submission_id=submission.pk) == "scored"
    export = pool_export_create(phase=rounds[2], actor=None, depth=15, selection="top", top_teams=3)
    assert pool_export_build(export_id=export.pk) == "done"
    export.refresh_from_db()
    with export.file.open("rb") as stored, zipfile.ZipFile(io.BytesIO(stored.read())) as archive:
        rows = [line.split("\t") for name in archive.namelist() for line in archive.read(name).decode().splitlines()[1:]]
    first, second = judged(1), judged(2)
    assert rows, "the pool holds the residual run's documents not judged yet"
    assert not [r for r in rows if r[2] in first.get(r[0], ())], "a document judged in round 1 was pooled again"
    assert not [r for r in rows if r[2] in second.get(r[0], ())]


def test_the_published_topics_download_byte_for_byte(campaign):
    competition, rounds, team, user = campaign
    url = reverse("competitions:topics", args=[competition.slug, "round-2", "docs"])
    with time_machine.travel(rounds[2].opens_at + timedelta(days=1)):
        response = client_for(user).get(url)
    assert response.status_code == 200
    body = b"".join(response.streaming_content) if response.streaming else response.content
    assert body == (DATA / "topics-round2.xml").read_bytes()


def test_each_round_gets_frozen_official_results_without_being_final(campaign):
    """Rounds as a notion (issue 34): round 1 (official_results, not final) is frozen and verified
    at its reveal and has its results page; the final round still is the only final one."""
    from cupboard.leaderboards.models import FrozenSnapshot
    from cupboard.leaderboards.releases import final_results_release_due

    competition, rounds, team, user = campaign
    submission = submitted(rounds[1], team, user, a_run(["1", "2", "3"], seed=1, earlier_rounds=()))
    assert submission_score(submission_id=submission.pk) == "scored"
    assert not rounds[1].is_final and rounds[1].official_results
    with time_machine.travel(rounds[1].reveal_at + timedelta(minutes=1), tick=False):
        assert final_results_release_due() == 1
        page = client_for(user).get(reverse("leaderboards:results", args=[competition.slug, "round-1"]))
    snapshot = FrozenSnapshot.objects.get(phase=rounds[1])
    assert page.status_code == 200 and snapshot.csv_sha256 in page.content.decode()
    assert rounds[1].verifications.exists()
    assert not FrozenSnapshot.objects.filter(phase=rounds[2]).exists()  # not revealed yet
