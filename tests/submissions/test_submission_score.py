"""submission_score: the worker side. Claims, idempotence, scores, rejections, retries."""
import os
import socket
import subprocess
import sys
import time
from datetime import timedelta
from unittest import mock

import pytest
import time_machine
from django.core.files.base import ContentFile
from django.db import OperationalError
from django.test import override_settings
from django.utils import timezone

from cupboard.competitions.models import Competition
from cupboard.jobs.workers import heartbeat, worker_id
from cupboard.leaderboards.models import LeaderboardRow
from cupboard.submissions import scoring, scoring_jobs
from cupboard.submissions.models import QueryScores, Score, Submission
from cupboard.submissions.scoring import submission_score, submission_sweep_stale
from cupboard.submissions.services import submission_create
from tests.factories import make_qrels_release
from tests.queries import messages
from tests.waiting import wait_until

from .conftest import good_sw, upload


@pytest.fixture(autouse=True)
def stale_after(settings):
    """The stale period these tests are written for (the default is shorter)."""
    settings.CUPBOARD_STALE_AFTER = 120


@pytest.fixture
def queued(world):
    return submission_create(phase=world.dev, team=world.team_a, user=world.participant, method_name="BM25",
                             files=[(upload("run.sw.txt", good_sw()), None)])


def scores_of(submission) -> dict:
    return {(s.subset.code, s.metric): s.value for s in Score.objects.filter(submission=submission)
            .select_related("subset")}


def test_it_scores_every_subset_and_counts_a_missing_one_as_zero(world, queued):
    assert submission_score(submission_id=queued.pk) == "scored"
    queued.refresh_from_db()
    assert queued.status == Submission.Status.SCORED and queued.progress == 100 and queued.attempts == 1
    assert queued.qrels_release == world.dev.qrels_releases.get() and queued.scored_at is not None
    scores = scores_of(queued)
    # sw, query 1: 11#0 (gain 2) then 10#0 (gain 1) is the ideal order -> nDCG 1; query 2: 20#0 at rank 2
    # -> 1/log2(3); query 3 has nothing relevant -> 0. Mean over the 3 judged queries.
    assert scores[("sw", "nDCG@10")] == pytest.approx((1 + 1 / 1.5849625007211563 + 0) / 3)
    assert scores[("sw", "R@100")] == pytest.approx((1 + 1 + 0) / 3)
    assert scores[("te", "nDCG@10")] == 0 and scores[("yo", "nDCG@10")] == 0
    per_query = QueryScores.objects.get(submission=queued, subset__code="sw").values
    assert per_query["nDCG@10"]["1"] == pytest.approx(1.0)


def test_it_leaves_a_missing_subset_out_when_the_competition_marks_it_incomplete(world, queued):
    Competition.objects.filter(pk=world.competition.pk).update(missing_subset=Competition.MissingSubset.INCOMPLETE)
    submission_score(submission_id=queued.pk)
    assert {code for code, _ in scores_of(queued)} == {"sw"}


def test_it_is_harmless_to_run_twice(world, queued):
    assert submission_score(submission_id=queued.pk) == "scored"
    first = scores_of(queued)
    assert submission_score(submission_id=queued.pk) == "skipped"
    queued.refresh_from_db()
    assert queued.attempts == 1 and scores_of(queued) == first
    assert Score.objects.filter(submission=queued).count() == 6  # 3 subsets x 2 metrics, no duplicates


def test_it_does_not_take_work_another_worker_holds(world, queued):
    Submission.objects.filter(pk=queued.pk).update(status=Submission.Status.SCORING, claimed_at=timezone.now())
    assert submission_score(submission_id=queued.pk) == "skipped"


def test_it_takes_over_a_stale_claim(world, queued):
    Submission.objects.filter(pk=queued.pk).update(status=Submission.Status.SCORING, attempts=1,
                                                   claimed_at=timezone.now() - timedelta(minutes=5))
    assert submission_score(submission_id=queued.pk) == "scored"
    queued.refresh_from_db()
    assert queued.attempts == 2


def _claimed_by(queued, claimed_by: str) -> None:
    now = timezone.now()
    Submission.objects.filter(pk=queued.pk).update(status=Submission.Status.SCORING, attempts=1, claimed_at=now,
                                                   heartbeat_at=now, claimed_by=claimed_by)


def test_it_takes_over_at_once_a_claim_whose_worker_process_is_gone(world, queued):
    finished = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    _claimed_by(queued, f"{socket.gethostname()}:{finished.stdout.strip()}")  # heartbeat fresh, process gone
    assert submission_score(submission_id=queued.pk) == "scored"
    queued.refresh_from_db()
    assert queued.attempts == 2 and queued.claimed_by == worker_id()


@pytest.mark.parametrize("holder", ["alive", "other host", "this process"])
def test_it_leaves_a_fresh_claim_whose_worker_may_be_alive(world, queued, holder):
    claimed_by = {"alive": f"{socket.gethostname()}:{os.getppid()}", "other host": "elsewhere.example:1",
                  "this process": worker_id()}[holder]
    _claimed_by(queued, claimed_by)
    assert submission_score(submission_id=queued.pk) == "skipped"


def test_it_beats_in_a_thread_while_the_block_runs(settings):
    settings.CUPBOARD_STALE_AFTER = 3  # a beat a second
    beats = []
    with heartbeat(lambda: beats.append(time.monotonic()) or True):
        wait_until(lambda: len(beats) >= 2, what="two beats")
    during = len(beats)
    time.sleep(1.5)  # more than a beat's interval: a beat after the block would show
    assert len(beats) == during  # none after the block


def test_a_missed_beat_does_not_stop_the_heartbeat(settings):
    settings.CUPBOARD_STALE_AFTER = 3
    calls = []

    def beat():
        calls.append(time.monotonic())
        if len(calls) == 1:
            raise OperationalError("database is locked")
        return True
    with heartbeat(beat):
        wait_until(lambda: len(calls) >= 2, what="a beat after the missed one")


def test_it_does_not_take_over_a_long_claim_whose_worker_reports_progress(world, queued):
    now = timezone.now()
    Submission.objects.filter(pk=queued.pk).update(status=Submission.Status.SCORING, attempts=1,
                                                   claimed_at=now - timedelta(minutes=5),
                                                   heartbeat_at=now - timedelta(seconds=30))
    assert submission_score(submission_id=queued.pk) == "skipped"
    queued.refresh_from_db()
    assert queued.attempts == 1 and queued.claimed_at == now - timedelta(minutes=5)


def test_it_beats_after_every_subset_so_a_long_job_keeps_its_claim(world, queued):
    # Three subsets (sw, te, yo) at 90 s each: 4.5 minutes in all, never 2 without progress.
    real_read_qrels = scoring_jobs.read_qrels
    heartbeats, requeued = [], []

    def slow_subset(*args, **kwargs):
        traveller.shift(timedelta(seconds=90))
        heartbeats.append(Submission.objects.get(pk=queued.pk).heartbeat_at)
        requeued.append(submission_sweep_stale()["put_back"])
        return real_read_qrels(*args, **kwargs)

    start = timezone.now()
    with time_machine.travel(start, tick=False) as traveller, \
            mock.patch("cupboard.submissions.scoring_jobs.read_qrels", side_effect=slow_subset):
        assert submission_score(submission_id=queued.pk) == "scored"
    queued.refresh_from_db()
    beat = timedelta(seconds=90)
    assert heartbeats == [start, start + beat, start + 2 * beat] and requeued == [0, 0, 0]
    assert queued.claimed_at == start and queued.heartbeat_at == start + 3 * beat and queued.attempts == 1


def test_progress_is_written_at_most_once_a_second_and_at_the_end(world, queued):
    written = []
    real = scoring.Claim.progress

    def recorded(claim, done, total):
        written.append((done, total))
        return real(claim, done, total)

    with time_machine.travel(timezone.now(), tick=False), \
            mock.patch.object(scoring.Claim, "progress", autospec=True, side_effect=recorded):
        assert submission_score(submission_id=queued.pk) == "scored"
    total = written[-1][1]
    assert total > 1 and written == [(total, total)], "its subsets all finished within a second: the end only"


def test_it_replaces_scores_with_the_new_release(world, queued):
    submission_score(submission_id=queued.pk)
    make_qrels_release(world.dev, {"sw": {"1": {"12#0": 1}}})
    Submission.objects.filter(pk=queued.pk).update(status=Submission.Status.QUEUED)
    submission_score(submission_id=queued.pk)
    queued.refresh_from_db()
    assert queued.qrels_release.number == 2
    scores = scores_of(queued)
    assert set(code for code, _ in scores) == {"sw"}
    assert scores[("sw", "nDCG@10")] == pytest.approx(1 / 2)  # 12#0 at rank 3: 1/log2(4)


def test_it_rejects_a_run_that_no_longer_validates(world, queued):
    run_file = queued.run_files.get()
    run_file.file.save("broken.txt", ContentFile(b"1 Q0 11#0 1\n"), save=True)  # the stored file lost its columns
    assert submission_score(submission_id=queued.pk) == "rejected"
    queued.refresh_from_db()
    assert queued.status == Submission.Status.REJECTED and "run.sw.txt" in queued.status_reason
    assert "no longer validates" in queued.status_reason
    assert not Score.objects.filter(submission=queued).exists()


def test_queries_that_left_the_topics_no_longer_count(world, queued):
    """A topics version that drops queries 2 and 3 (competitions/topics_changes.py): the run,
    checked against the old topics at upload, is scored on query 1 alone, not rejected."""
    topics = world.dev.topic_sets.get(subset__code="sw")
    topics.file.save("new.tsv", ContentFile(b"1\tq\n"), save=False)
    topics.sha256 = "a later version"
    topics.save()
    assert submission_score(submission_id=queued.pk) == "scored"
    assert scores_of(queued)[("sw", "nDCG@10")] == pytest.approx(1.0)  # query 1 only (it was 0.54 on all three)
    assert list(QueryScores.objects.get(submission=queued, subset__code="sw").values["nDCG@10"]) == ["1"]


def test_it_waits_for_judgments_without_spending_an_attempt(world):
    submission = submission_create(phase=world.test_b, team=world.team_a, user=world.participant,
                                   method_name="BM25", files=[(upload("run.sw.txt", good_sw()), None)])
    assert submission_score(submission_id=submission.pk) == "waiting"
    submission.refresh_from_db()
    assert submission.status == Submission.Status.QUEUED and submission.attempts == 0


@override_settings(CUPBOARD_MAX_ATTEMPTS=2)
def test_it_retries_an_unexpected_error_then_fails_with_the_reason(world, queued, django_capture_on_commit_callbacks):
    boom = mock.patch("cupboard.submissions.scoring_jobs.read_qrels", side_effect=OSError("disk on fire"))
    with boom, django_capture_on_commit_callbacks() as callbacks:
        assert submission_score(submission_id=queued.pk) == "queued"
    queued.refresh_from_db()
    assert queued.status == Submission.Status.QUEUED and "disk on fire" in queued.status_reason
    assert len(messages(callbacks)) == 1  # a retry message was sent
    with boom:
        assert submission_score(submission_id=queued.pk) == "failed"
    queued.refresh_from_db()
    assert queued.status == Submission.Status.FAILED and queued.attempts == 2
    assert "OSError: disk on fire" in queued.status_reason
    assert submission_score(submission_id=queued.pk) == "skipped"


def test_it_does_not_overwrite_work_after_losing_its_claim(world, queued):
    real = scoring._score_subsets

    def slow_then_stolen(**kwargs):
        results = real(**kwargs)
        # Meanwhile the sweeper judged us dead and another worker claimed the row.
        Submission.objects.filter(pk=queued.pk).update(claimed_at=timezone.now() + timedelta(seconds=1))
        return results

    with mock.patch("cupboard.submissions.scoring._score_subsets", side_effect=slow_then_stolen):
        assert submission_score(submission_id=queued.pk) == "lost-claim"
    queued.refresh_from_db()
    assert queued.status == Submission.Status.SCORING and not Score.objects.filter(submission=queued).exists()


def test_it_updates_the_leaderboard_row_of_its_team(world, queued):
    # The row comes from the "run scored" flow (cupboard/flows/run_scored.py).
    assert not LeaderboardRow.objects.filter(phase=queued.phase, team=queued.team).exists()
    submission_score(submission_id=queued.pk)
    row = LeaderboardRow.objects.get(phase=queued.phase, team=queued.team)
    assert row.submission_id == queued.pk and row.rank == 1


def test_it_scores_a_baseline_after_the_phase_closed(world):
    with time_machine.travel(world.dev.closes_at + timedelta(days=1)):
        baseline = submission_create(phase=world.dev, team=None, user=world.organizer, method_name="BM25",
                                     files=[(upload("bm25.sw.txt", good_sw()), None)], is_baseline=True)
        assert submission_score(submission_id=baseline.pk) == "scored"
