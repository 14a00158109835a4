"""The per-topic CSVs byte for byte as they were before they were made fast (the stored
documents decoded once with orjson, the ranges and the organizers' rows kept in Django's
cache, the run columns written a column at a time): the code of before is kept below as the
oracle, and both read the same stored values, chosen to be awkward (0 and 1, 17 digits,
tiny numbers, a negative one, a topic a run lacks, a topic id with a comma), cold and from
the cache, and after a re-score and a disqualification, which must not be served stale."""
import random
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from cupboard.competitions.selectors import current_qrels_release, phase_subsets
from cupboard.competitions.viewer import Viewer
from cupboard.csvexport import csv_text
from cupboard.submissions import topic_reports as module
from cupboard.submissions.models import QueryScores, RunFile, Submission
from cupboard.submissions.services import submission_disqualify
from cupboard.submissions.topic_reports import CSV_COLUMNS, TopicReport, _number, _rows, _run_label, counted_runs, report_subsets
from evaluator.per_topic import topic_key, topic_ranges
from tests.personas import client_for

from .conftest import upload
from .test_comparison import scored
from .test_per_topic import OTHER_SW, THIRD_SW

TOPICS = ["1", "2", "3", "10", "11", "a1", "x,1", "q-7"]


# --- the code of before (main at 91f1920), the oracle ------------------------------------------
def old_topic_reports(viewer, submission, subset):
    counted = dict(QueryScores.objects.filter(submission__in=counted_runs(submission.phase, subset), subset=subset)
                   .values_list("submission_id", "values"))
    own = counted.get(submission.pk) or (QueryScores.objects.filter(submission=submission, subset=subset)
                                         .values_list("values", flat=True).first() or {})
    reports = []
    for metric in viewer.competition.metrics:
        ranges = topic_ranges(values.get(metric, {}) for values in counted.values())
        reports.append(TopicReport(subset=subset, metric=metric, runs=len(counted),
                                   rows=_rows(viewer, own.get(metric, {}), ranges)))
    return reports


def old_run_topics_csv(viewer, submission) -> str:
    lines: list[list] = [list(CSV_COLUMNS)]
    for subset in report_subsets(viewer, submission):
        for report in old_topic_reports(viewer, submission, subset):
            lines += [[subset.code, row.topic, report.metric, _number(row.value), _number(row.best),
                       _number(row.median), _number(row.worst)] for row in report.rows]
    return csv_text(lines)


def old_phase_topics_csv(phase):
    runs = list(Submission.objects.filter(phase=phase, status=Submission.Status.SCORED,
                                          qrels_release=current_qrels_release(phase))
                .select_related("team").order_by("created_at", "pk"))
    yield csv_text([["language", "topic", "measure", "best", "median", "worst", *map(_run_label, runs)]])
    ran = set(RunFile.objects.filter(submission__in=runs).values_list("subset_id", "submission_id"))
    metrics = phase.competition.metrics
    for subset in phase_subsets(phase, list(phase.competition.subsets.order_by("position", "code"))):
        values = {sid: v for sid, v in QueryScores.objects.filter(submission__in=runs, subset=subset)
                  .values_list("submission_id", "values") if (subset.pk, sid) in ran}
        counted = [values[run.pk] for run in runs if run.pk in values and not run.disqualified]
        for metric in metrics:
            ranges = topic_ranges(v.get(metric, {}) for v in counted)
            yield csv_text([[subset.code, qid, metric, _number(found.best), _number(found.median),
                             _number(found.worst), *(_number(values.get(run.pk, {}).get(metric, {}).get(qid))
                                                     for run in runs)]
                            for qid, found in sorted(ranges.items(), key=lambda item: topic_key(item[0]))])
# ------------------------------------------------------------------------------------------------


def awkward(rng: random.Random) -> float:
    return rng.choice([0.0, 1.0, 1e-05, 2.5e-17, 1 / 3, 0.1 + 0.2, rng.random(), rng.random(), rng.random()])


def store_awkward_values(runs, rng: random.Random) -> None:
    """Every stored document of `runs` replaced by awkward values on TOPICS (the first run's sw
    lacks topic 10, the second's has a negative value), as a worker would store them."""
    for row in QueryScores.objects.filter(submission__in=runs).select_related("subset").order_by("pk"):
        values = {metric: {qid: awkward(rng) for qid in TOPICS} for metric in ("nDCG@10", "R@100")}
        if row.subset.code == "sw" and row.submission_id == runs[0].pk:
            del values["nDCG@10"]["10"]
        if row.subset.code == "sw" and row.submission_id == runs[1].pk:
            values["nDCG@10"]["2"] = -0.5
        row.values = values
        row.save()


@pytest.fixture
def runs(world):
    """Six scored runs on dev: two languages for one, one language (te) only for another, a
    baseline, another team's, and one disqualified; awkward stored values."""
    both = [(upload("run.sw.txt", OTHER_SW), None), (upload("run.te.txt", {"1": ["10#1"], "2": ["20#1"]}), None)]
    found = [scored(world), scored(world, files=both), scored(world, rankings=THIRD_SW),
             scored(world, team=world.team_b, user=world.outsider, rankings=OTHER_SW),
             scored(world, baseline=True), scored(world, files=[(upload("run.te.txt", {"1": ["10#1"]}), None)])]
    submission_disqualify(submission=found[2], actor=world.organizer, reason="test")
    store_awkward_values(found, random.Random(7))
    return [Submission.objects.get(pk=s.pk) for s in found]


def phase_csv(world) -> bytes:
    response = client_for(world.organizer).get(reverse("competitions:manage_per_topic",
                                                       args=[world.competition.slug, "dev"]))
    assert response.status_code == 200
    return b"".join(response.streaming_content)


def run_csv(user, submission) -> bytes:
    response = client_for(user).get(reverse("submissions:per_topic_csv", args=[submission.pk]))
    assert response.status_code == 200
    return response.content


def expected(world, user, submission=None) -> bytes:
    if submission is None:
        return "".join(old_phase_topics_csv(world.dev)).encode()
    return old_run_topics_csv(Viewer(user, world.competition, timezone.now()), submission).encode()


def assert_as_before(world, runs) -> None:
    """Every CSV, twice (the second from the cache), as the code of before writes it."""
    for _ in range(2):
        assert phase_csv(world) == expected(world, world.organizer)
        for user, submission in ((world.organizer, runs[1]), (world.participant, runs[1]), (world.organizer, runs[2]),
                                 (world.outsider, runs[3]), (world.organizer, runs[5])):
            assert run_csv(user, submission) == expected(world, user, submission)


def test_the_csvs_are_byte_for_byte_those_of_before(world, runs):
    found = phase_csv(world).decode()
    assert "'-0.5" in found and '"x,1"' in found and "1e-05" in found and "2.5e-17" in found
    assert found.count("\r\n") == 1 + 2 * 2 * len(TOPICS)  # header; sw and te, two measures, every topic
    assert_as_before(world, runs)


def test_a_rescore_or_a_disqualification_is_never_served_from_the_cache(world, runs):
    assert_as_before(world, runs)  # everything cached
    row = QueryScores.objects.get(submission=runs[0], subset__code="sw")
    row.values = {metric: {qid: 0.9 for qid in TOPICS} for metric in row.values}
    row.save()
    Submission.objects.filter(pk=runs[0].pk).update(scored_at=timezone.now() + timedelta(seconds=1))  # a re-score
    before = phase_csv(world)
    assert before == expected(world, world.organizer) and b",0.9," in before
    assert_as_before(world, runs)
    submission_disqualify(submission=runs[3], actor=world.organizer, reason="test")
    assert phase_csv(world) != before
    assert_as_before(world, runs)


def test_the_run_csv_reads_a_few_queries_whatever_the_languages(world, runs):
    """Not a few per language: the counted runs and the run's own values are read once."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as cold:
        run_csv(world.organizer, runs[1])
    with CaptureQueriesContext(connection) as warm:
        run_csv(world.organizer, runs[1])
    assert len(warm) < len(cold)  # the ranges came from the cache
    warm_count = len(warm)
    run_csv(world.organizer, runs[0])
    with CaptureQueriesContext(connection) as one_language:
        assert b"\r\nte," not in run_csv(world.organizer, runs[0])
    assert len(one_language) == warm_count  # sw alone, or sw and te: the same queries
    assert not any(module.QueryScores._meta.db_table in q["sql"] and "IN (" in q["sql"] for q in warm.captured_queries)
