"""`evaluator.engines.parallel`: a submission scored on two worker processes gives exactly what one
process gives, and what `read_run` + `Evaluator.score` give per language (the path the
platform's Celery task takes). sw's run is 2.7 MB, so the one-process reader cuts it in two
blocks (one per parsing thread) while a worker reads it as one: the split must not show."""
import pytest

from evaluator.benchmarks import get_benchmark
from evaluator.engines.parallel import Job, Outcome, Scoring, score_job, score_submission
from evaluator.engines.scoring import Evaluator
from evaluator.io.qrels import read_qrels
from evaluator.io.runs import read_run
from evaluator.io.topics import read_topics
from evaluator.synthetic import make_miracl_set

SCORING = Scoring(("nDCG@10", "R@100", "MAP", "RR@10"), docid_pattern=get_benchmark("miracl").docid_pattern)


@pytest.fixture(scope="module")
def submission(tmp_path_factory):
    directory = tmp_path_factory.mktemp("submission")
    make_miracl_set(directory, counts={"sw": 700, "yo": 120, "de": 60}, depth=100)

    def path(kind, code):
        names = {"qrels": f"qrels.miracl-v1.0-{code}-test-b.tsv", "topics": f"topics.miracl-v1.0-{code}-test-b.tsv",
                 "run": f"run.miracl.synthetic.{code}.test-b.txt"}
        return str(directory / names[kind])

    broken = directory / "run.broken.de.txt"
    first, rest = open(path("run", "de")).read().split("\n", 1)
    qid, q0, docid, rank, _, tag = first.split()
    broken.write_text(f"{qid} {q0} {docid} {rank} high {tag}\n{rest}")
    return [Job(code, path("qrels", code), path("run", code), path("topics", code)) for code in ("sw", "yo")] + [
        Job("de", path("qrels", "de"), str(broken), path("topics", "de"))]


def test_it_gives_exactly_the_results_of_one_process(submission):
    serial = score_submission(submission, scoring=SCORING, workers=1)
    parallel = score_submission(submission, scoring=SCORING, workers=2)
    assert list(parallel) == list(serial) == ["sw", "yo", "de"]  # the order of the jobs
    assert parallel == serial  # every report, problem, mean and per-query value, bit for bit
    assert parallel["sw"].report.lines == 70_000 - 14 * 100 and parallel["sw"].report.warnings


def test_it_scores_as_the_single_file_api_does(submission):
    outcomes = score_submission(submission, scoring=SCORING, workers=2)
    for job in submission[:2]:
        topics = read_topics(job.topics)
        run, report = read_run(job.run, topics=topics, docid_pattern=SCORING.docid_pattern)
        expected = Evaluator(read_qrels(job.qrels), SCORING.metrics).score(run, subset=job.subset, name=job.run)
        assert outcomes[job.subset].result == expected
        assert outcomes[job.subset].report == report


def test_it_reports_a_rejected_run_and_still_scores_the_others(submission):
    outcomes = score_submission(submission, scoring=SCORING, workers=2)
    rejected = outcomes["de"]
    assert rejected.result is None and [p.code for p in rejected.report.errors][:1] == ["bad-score"]
    assert rejected.report.errors[0].line == 1
    assert outcomes["yo"].result.means["nDCG@10"] > 0


def test_it_checks_qrels_and_topics_of_a_language_without_a_run(tmp_path):
    qrels, topics = tmp_path / "qrels.tsv", tmp_path / "topics.tsv"
    qrels.write_text("q1\tQ0\t1#0\t1\nq1\tQ0\t1#0\t0\n")
    topics.write_text("q1\tswali\n")
    outcome = score_job(Job("sw", str(qrels), None, str(topics)), scoring=SCORING)
    assert outcome == Outcome("sw", outcome.qrels_errors)
    assert [p.code for p in outcome.qrels_errors] == ["duplicate-judgment"]


def test_it_validates_a_run_whose_qrels_are_broken_but_does_not_score_it(tmp_path):
    qrels, run = tmp_path / "qrels.tsv", tmp_path / "run.txt"
    qrels.write_text("q1\tQ0\t1#0\tyes\n")
    run.write_text("q1 Q0 1#0 1 2.0 bm25\nq1 Q0 1#0 2 1.0 bm25\n")
    outcome = score_job(Job("sw", str(qrels), str(run)), scoring=SCORING)
    assert [p.code for p in outcome.qrels_errors] == ["bad-label"]
    assert [p.code for p in outcome.report.errors] == ["duplicate-docid"] and outcome.result is None


def test_it_refuses_two_jobs_for_one_language(submission):
    with pytest.raises(ValueError, match="only one job"):
        score_submission([submission[0], submission[0]], scoring=SCORING, workers=2)


def test_it_leaves_per_query_values_out_when_asked_and_keeps_the_means(submission):
    means_only = Scoring(SCORING.metrics, docid_pattern=SCORING.docid_pattern, per_query=False)
    full, lean = (score_submission(submission[:2], scoring=s, workers=2) for s in (SCORING, means_only))
    for code in ("sw", "yo"):
        assert lean[code].result.per_query == {} and len(full[code].result.per_query["MAP"]) > 100
        assert lean[code].result.means == full[code].result.means


def test_it_prints_the_same_document_from_the_command_line_with_one_worker_or_two(submission, capsys):
    from evaluator.cli import main

    def document(*extra):
        args = ["score", "--qrels", *(f"{j.subset}={j.qrels}" for j in submission),
                "--run", *(f"{j.subset}={j.run}" for j in submission[:2]),
                "--topics", *(f"{j.subset}={j.topics}" for j in submission), "--per-query", "--format", "json"]
        code = main([*args, *extra])
        return code, capsys.readouterr().out

    one, two = document("--workers", "1"), document()
    assert one == two and one[0] == 0
    assert '"sw"' in one[1] and '"per_query"' in one[1]
    broken = main(["score", "--qrels", f"de={submission[2].qrels}", "--run", f"de={submission[2].run}",
                   "--format", "json", "--workers", "2"])
    assert broken == 1 and '"bad-score"' in capsys.readouterr().out
