"""Scoring as a kind of job (cupboard.jobs): the `SCORING` declaration and sending its messages.

Apart from scoring.py (the worker's side) so that services.py, which queues submissions, and
scoring.py, which scores them and queues them again, both import it and not each other.
"""
from django.db import transaction
from django.db.models import Q

from cupboard import events
from cupboard.jobs import JobKind, job_send

from .events import RunFinished
from .models import Submission


def _give_up(row: dict) -> dict:
    last = row["status_reason"] or "the worker stopped responding"
    reason = f"Gave up after {row['attempts']} scoring attempts. Last problem: {last}"
    return {"status": Submission.Status.FAILED, "status_reason": reason[:2000], "progress": 0}


def _gave_up(submission_id: int) -> None:
    events.send(RunFinished(submission_id=submission_id, status=Submission.Status.FAILED))


SCORING = JobKind(
    name="scoring", model=Submission, task="cupboard.submissions.tasks.score_submission",
    waiting=Q(status=Submission.Status.QUEUED), running=Q(status=Submission.Status.SCORING),
    take={"status": Submission.Status.SCORING, "progress": 0},
    put_back={"status": Submission.Status.QUEUED, "progress": 0,
              "status_reason": "The worker stopped responding; queued again."},
    give_up=_give_up, gave_up=_gave_up)


def submissions_send(*, submission_ids: list[int]) -> int:
    """Send a scoring message per id now; returns how many went out. A broker that is down is
    not an error: the rows are committed and queued, and the stale sweeper sends them again
    (cupboard.jobs: `job_send`)."""
    return job_send(SCORING, submission_ids)


def submission_enqueue(*, submission_ids: list[int]) -> None:
    """Send scoring messages once the current transaction commits (a worker must find the row)."""
    transaction.on_commit(lambda: submissions_send(submission_ids=submission_ids))
