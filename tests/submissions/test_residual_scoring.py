"""A residual phase (issue 34): test-b declares `residual_of: [dev]`, so the documents dev's
judgments hold for a topic are removed from test-b's runs before scoring. Every stored value
(means and per-topic, Judged@10 too) equals `trec_eval -q -c -M depth` on the run file filtered
line by line; the per-topic page lists what was removed and why; the phase's pool holds no
document judged in dev."""
import io
import random
import subprocess
import zipfile

import pytest
from django.urls import reverse

from cupboard.competitions.models import Phase
from cupboard.judging.pools import pool_export_build, pool_export_create
from cupboard.submissions.models import QueryScores, Score
from cupboard.submissions.scoring import submission_score
from cupboard.submissions.services import submission_create
from tests.factories import make_competition, make_qrels_release, make_team, make_topics, make_user, qrels_text
from tests.personas import client_for

from .conftest import upload

pytestmark = pytest.mark.django_db
TOLERANCE = 1e-12


def rounds(seed: int = 34, topics: int = 8):
    """(round-1 judgments, round-2 judgments, a run): the run ranks many round-1 documents
    near its top, as round-2 runs of TREC-COVID did, and 150 documents per topic (deeper than
    the 100 scored, so documents move up into the scored depth)."""
    rng = random.Random(seed)
    first, second, lines = {}, {}, []
    for t in range(1, topics + 1):
        qid = str(t)
        docs = [f"{t}{n:03d}#0" for n in range(150)]
        first[qid] = {d: rng.choice((0, 1)) for d in docs[:40] if rng.random() < 0.5}
        second[qid] = {d: rng.choice((0, 1, 1)) for d in docs if d not in first[qid] and rng.random() < 0.2}
        lines += [f"{qid} Q0 {d} {rank} {1000 - rank}.5 r\n" for rank, d in enumerate(docs, 1)]
    return first, second, "".join(lines)


def trec_eval_values(binary, qrels, run, depth: int) -> dict:
    """{(measure, qid): value} of `trec_eval -q -c -M depth` for the competition's measures."""
    done = subprocess.run([str(binary), "-q", "-c", "-M", str(depth), "-m", "ndcg_cut.10", "-m", "recall.100",
                           str(qrels), str(run)], capture_output=True, check=True, timeout=60)
    names = {"ndcg_cut_10": "nDCG@10", "recall_100": "R@100"}
    values = {}
    for line in done.stdout.decode().splitlines():
        measure, qid, value = line.split("\t")
        values[names[measure.strip()], qid] = float(value)
    return values


def filtered(run_text: str, judged: dict) -> str:
    return "".join(line + "\n" for line in run_text.splitlines()
                   if line.split()[2] not in judged.get(line.split()[0], {}))


@pytest.fixture
def residual_phase():
    organizer = make_user()
    competition = make_competition(known=["sw"], surprise=(), organizers=[organizer])
    dev, test_b = competition.phases.get(slug="dev"), competition.phases.get(slug="test-b")
    Phase.objects.filter(pk=test_b.pk).update(residual_of=["dev"])
    test_b.refresh_from_db()
    first, second, run_text = rounds()
    make_topics(dev, "sw", sorted(first))
    make_topics(test_b, "sw", sorted(second))
    make_qrels_release(dev, {"sw": first})
    make_qrels_release(test_b, {"sw": second})
    user = make_user()
    submission = submission_create(phase=test_b, team=make_team(competition, members=[user]), user=user,
                                   method_name="residual", files=[(upload("run.sw.txt", run_text.encode()), None)])
    assert submission_score(submission_id=submission.pk) == "scored"
    return organizer, competition, test_b, submission, first, second, run_text


def test_stored_values_equal_trec_eval_on_the_residual_run(residual_phase, trec_eval, tmp_path):
    _, competition, _, submission, first, second, run_text = residual_phase
    (tmp_path / "qrels").write_bytes(qrels_text(second))
    (tmp_path / "residual").write_text(filtered(run_text, first))
    expected = trec_eval_values(trec_eval, tmp_path / "qrels", tmp_path / "residual", competition.scored_depth())
    means = dict(Score.objects.filter(submission=submission).values_list("metric", "value"))
    assert set(means) == {"nDCG@10", "R@100"}
    for metric, value in means.items():
        assert value == pytest.approx(expected[metric, "all"], abs=TOLERANCE), metric
    per_query = QueryScores.objects.get(submission=submission)
    for metric, values in per_query.values.items():
        for qid, value in values.items():
            assert value == pytest.approx(expected[metric, qid], abs=TOLERANCE), (metric, qid)
    # and the raw run scores otherwise: the residual changed the numbers
    (tmp_path / "raw").write_text(run_text)
    raw = trec_eval_values(trec_eval, tmp_path / "qrels", tmp_path / "raw", competition.scored_depth())
    assert abs(raw["nDCG@10", "all"] - means["nDCG@10"]) > 0.01


def test_judged_at_10_and_the_removed_documents_are_the_residual_runs(residual_phase):
    _, _, _, submission, first, second, run_text = residual_phase
    residual = filtered(run_text, first).splitlines()
    tops: dict[str, list[str]] = {}
    for line in residual:
        qid, _, docid = line.split()[:3]
        tops.setdefault(qid, []).append(docid)
    expected = sum(sum(d in second[q] for d in docs[:10]) / 10 for q, docs in tops.items()) / len(second)
    assert submission.judged_shares.get().value == pytest.approx(expected, abs=TOLERANCE)
    removed = QueryScores.objects.get(submission=submission).removed
    in_run = {q: [line.split()[2] for line in run_text.splitlines() if line.split()[0] == q] for q in first}
    assert removed == {q: [d for d in in_run[q] if d in first[q]] for q in first if first[q]}


def test_the_per_topic_page_says_what_was_removed_and_why(residual_phase):
    organizer, competition, _, submission, first, _, _ = residual_phase
    page = client_for(organizer).get(reverse("submissions:per_topic", args=[submission.pk])).content.decode()
    assert "Documents removed before scoring" in page
    assert "residual collection" in page and "Development" in page
    some = next(d for docs in first.values() for d, _ in docs.items())
    assert some in page


def test_the_pool_of_a_residual_phase_skips_what_earlier_rounds_judged(residual_phase):
    organizer, _, test_b, submission, first, second, _ = residual_phase
    export = pool_export_create(phase=test_b, actor=organizer, depth=20, selection="top", top_teams=5)
    assert pool_export_build(export_id=export.pk) == "done"
    export.refresh_from_db()
    with export.file.open("rb") as stored, zipfile.ZipFile(io.BytesIO(stored.read())) as archive:
        rows = [line.split("\t") for name in archive.namelist() for line in archive.read(name).decode().splitlines()[1:]]
    assert rows, "the pool holds the residual run's unjudged documents"
    assert not [r for r in rows if r[2] in first.get(r[0], {})], "a document judged in round 1 was pooled again"
    assert not [r for r in rows if r[2] in second.get(r[0], {})]
    assert export.counts[0]["documents"] == len(rows)


def test_a_scoring_job_carries_what_it_removes_without_a_query_left(residual_phase, django_assert_num_queries):
    """The jobs run in forked processes that must never touch the database (scoring_jobs.py)."""
    from cupboard.competitions.selectors import current_qrels_release
    from cupboard.submissions.scoring_jobs import subset_jobs

    _, _, test_b, submission, _, _, _ = residual_phase
    jobs, _ = subset_jobs(submission=submission, release=current_qrels_release(test_b))
    with django_assert_num_queries(0):
        names = [f"{f.release.phase.name} v{f.release.number} {f.file.name}" for job in jobs for f in job.judged]
    assert len(names) == 1 and names[0].startswith("Development v1")


def test_the_submission_page_says_the_run_was_scored_on_the_residual_collection(residual_phase):
    organizer, _, _, submission, first, _, run_text = residual_phase
    removed = sum(len(docs) for docs in QueryScores.objects.get(submission=submission).removed.values())
    page = client_for(organizer).get(reverse("submissions:detail", args=[submission.pk])).content.decode()
    note = page.split('id="residual-note"')[1].split("</section>")[0]
    assert f"{removed} documents" in note and "Development" in note and removed > 0

