"""Celery tasks: thin wrappers that import their service inside the body.

A message carries only a submission id; the row says what to do. acks_late and
reject_on_worker_lost mean a worker killed mid-task leaves the message to be delivered
again, and the claim in `submission_score` makes the second delivery harmless.
"""
from celery import shared_task
from django.conf import settings


@shared_task(acks_late=True, reject_on_worker_lost=True, ignore_result=True,
             soft_time_limit=settings.CELERY_TASK_SOFT_TIME_LIMIT, time_limit=settings.CELERY_TASK_TIME_LIMIT)
def score_submission(submission_id: int) -> str:
    from .scoring import submission_score

    return submission_score(submission_id=submission_id)


@shared_task(ignore_result=True)
def purge_run_files() -> dict:
    """Run by beat hourly: files of rejected and failed submissions past their retention period."""
    from .retention import run_files_purge

    purged = run_files_purge()
    return {"files": purged.files, "bytes": purged.bytes}


@shared_task(acks_late=True, reject_on_worker_lost=True, ignore_result=True,
             soft_time_limit=settings.CELERY_TASK_SOFT_TIME_LIMIT, time_limit=settings.CELERY_TASK_TIME_LIMIT)
def verify_scores(verification_id: int) -> str:
    """Recompute a phase's scores with pytrec_eval and compare (submissions/verification.py)."""
    from .verification import verification_run

    return verification_run(verification_id=verification_id)
