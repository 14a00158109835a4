"""submission_sweep_stale: stale work is re-queued, never silently cancelled; out of attempts -> failed."""
from datetime import timedelta

import pytest
from django.utils import timezone

from cupboard.submissions.models import Submission
from cupboard.submissions.scoring import submission_score, submission_sweep_stale
from cupboard.submissions.services import submission_create
from tests.queries import messages

from .conftest import good_sw, upload


@pytest.fixture(autouse=True)
def periods(settings):
    """The stale and re-nudge periods these tests are written for (the defaults are shorter)."""
    settings.CUPBOARD_STALE_AFTER = settings.CUPBOARD_RESEND_AFTER = 120


@pytest.fixture
def submission(world):
    return submission_create(phase=world.dev, team=world.team_a, user=world.participant, method_name="BM25",
                             files=[(upload("run.sw.txt", good_sw()), None)])


def set_row(submission, **fields):
    Submission.objects.filter(pk=submission.pk).update(**fields)


def test_it_requeues_a_claim_whose_worker_went_silent(submission, django_capture_on_commit_callbacks):
    now = timezone.now()
    set_row(submission, status=Submission.Status.SCORING, attempts=1, claimed_at=now - timedelta(seconds=121))
    with django_capture_on_commit_callbacks() as callbacks:
        assert submission_sweep_stale(now=now) == {"put_back": 1, "resent": 0, "failed": 0}
    submission.refresh_from_db()
    assert submission.status == Submission.Status.QUEUED and "stopped responding" in submission.status_reason
    assert len(messages(callbacks)) == 1
    assert submission_score(submission_id=submission.pk) == "scored"


def test_it_leaves_fresh_work_alone(submission):
    now = timezone.now()
    set_row(submission, status=Submission.Status.SCORING, attempts=1, claimed_at=now - timedelta(seconds=119))
    assert submission_sweep_stale(now=now) == {"put_back": 0, "resent": 0, "failed": 0}
    assert submission_sweep_stale(now=now + timedelta(seconds=2))["put_back"] == 1


def test_it_leaves_a_long_job_alone_until_its_heartbeat_stops(submission):
    # Claimed 10 minutes ago, but its worker reported progress 119 s ago: alive, until 2 s later.
    now = timezone.now()
    set_row(submission, status=Submission.Status.SCORING, attempts=1, claimed_at=now - timedelta(minutes=10),
            heartbeat_at=now - timedelta(seconds=119))
    assert submission_sweep_stale(now=now) == {"put_back": 0, "resent": 0, "failed": 0}
    submission.refresh_from_db()
    assert submission.status == Submission.Status.SCORING
    assert submission_sweep_stale(now=now + timedelta(seconds=2))["put_back"] == 1


def test_it_nudges_a_queued_submission_whose_message_seems_lost(submission, django_capture_on_commit_callbacks):
    later = submission.queued_at + timedelta(minutes=3)
    with django_capture_on_commit_callbacks() as callbacks:
        assert submission_sweep_stale(now=later)["resent"] == 1
    assert len(messages(callbacks)) == 1
    # Nudged once per stale period, not on every sweep.
    assert submission_sweep_stale(now=later + timedelta(seconds=30))["resent"] == 0


def test_it_fails_work_out_of_attempts_with_a_reason(submission):
    now = timezone.now()
    set_row(submission, status=Submission.Status.SCORING, attempts=3, claimed_at=now - timedelta(minutes=10))
    assert submission_sweep_stale(now=now)["failed"] == 1
    submission.refresh_from_db()
    assert submission.status == Submission.Status.FAILED
    assert "3 scoring attempts" in submission.status_reason and "stopped responding" in submission.status_reason


def test_it_never_touches_finished_submissions(submission):
    submission_score(submission_id=submission.pk)
    assert submission_sweep_stale(now=timezone.now() + timedelta(days=1)) == {"put_back": 0, "resent": 0,
                                                                              "failed": 0}
    submission.refresh_from_db()
    assert submission.status == Submission.Status.SCORED
