"""The worker side: scoring one submission, and sweeping up work that went stale.

The submission row is the truth. A worker claims it with a conditional update and proceeds
only if it changed one row; it writes scores and the final state only while its claim still
holds, so running the task twice, or a second worker taking over stale work, is harmless.
Scoring work is stale when its worker said nothing (`heartbeat_at`) for CUPBOARD_STALE_AFTER
seconds, not when it was claimed that long ago: the scoring process beats in a thread while it
works, so a long job keeps its claim while its process lives (see workers.py). Work of a worker
process of this host that no longer exists is taken over at once, stale or not.
A queued submission whose message seems lost (a broker outage at upload) is nudged again after
CUPBOARD_RENUDGE_AFTER seconds.
"""
import logging
import time
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import F, Q, QuerySet
from django.db.models.functions import Coalesce
from django.utils import timezone

from cupboard.competitions.models import Competition, QrelsRelease, TopicSet
from cupboard.competitions.selectors import current_qrels_release, qrels_files
from cupboard.judging.judged import judged_shares_store
from cupboard.leaderboards.services import leaderboard_update
from cupboard.locking import locked
from cupboard.notifications.services import notify_submission

from .models import QueryScores, Score, Submission
from .scoring_jobs import RunRejected, score_jobs, scoring_processes, subset_jobs
from .services import submission_enqueue
from .workers import heartbeat, is_gone, worker_id

logger = logging.getLogger(__name__)


def _stale_before(now: datetime) -> datetime:
    return now - timedelta(seconds=settings.CUPBOARD_STALE_AFTER)


def _with_last_sign_of_life() -> QuerySet:
    """Submissions with `last_sign_of_life`: the scoring worker's last heartbeat, or its claim time
    for rows claimed before heartbeats existed. Spelled as the index in Submission.Meta is."""
    return Submission.objects.alias(last_sign_of_life=Coalesce("heartbeat_at", "claimed_at"))


def _silent_scoring(now: datetime) -> Q:
    """Scoring rows whose worker said nothing for CUPBOARD_STALE_AFTER seconds: its process is gone or frozen."""
    return Q(status=Submission.Status.SCORING, last_sign_of_life__lt=_stale_before(now))


def _abandoned(submission_id: int) -> Q:
    """The row, if a worker process of this host claimed it and no longer exists (a killed pool
    child whose message came back): no reason to wait for its claim to go stale."""
    row = (Submission.objects.filter(pk=submission_id, status=Submission.Status.SCORING).exclude(claimed_by="")
           .values("claimed_by", "claimed_at").first())
    if row is None or not is_gone(row["claimed_by"]):
        return Q(pk__in=[])
    logger.info("submission %s: its worker %s is gone; taking it over", submission_id, row["claimed_by"])
    return Q(status=Submission.Status.SCORING, **row)


def _claim(*, submission_id: int, now: datetime) -> bool:
    claimable = Q(status=Submission.Status.QUEUED) | _silent_scoring(now) | _abandoned(submission_id)
    changed = _with_last_sign_of_life().filter(claimable, pk=submission_id,
                                               attempts__lt=settings.CUPBOARD_MAX_ATTEMPTS).update(
        status=Submission.Status.SCORING, attempts=F("attempts") + 1, claimed_at=now, heartbeat_at=now,
        claimed_by=worker_id(), progress=0)
    return changed == 1


def _ours(*, submission_id: int, claimed_at: datetime):
    """The row, only while our claim still holds (a sweeper may have handed it to someone else)."""
    return Submission.objects.filter(pk=submission_id, status=Submission.Status.SCORING, claimed_at=claimed_at)


def _score_subsets(*, submission: Submission, release: QrelsRelease, claimed_at: datetime) -> list:
    """(subset, SubsetResult or None) per qrels file; None = no run and the competition marks it incomplete.
    Subsets are scored side by side within the worker's budget (scoring_jobs.py); each one
    finished is a heartbeat too, so the sweeper leaves a long job alone while it moves."""
    competition: Competition = submission.phase.competition
    jobs, skipped = subset_jobs(submission=submission, release=release)
    files = len(jobs) + len(skipped)

    def done(finished: int, total: int) -> None:
        _ours(submission_id=submission.pk, claimed_at=claimed_at).update(
            progress=int(90 * (finished + len(skipped)) / files), heartbeat_at=timezone.now())

    results = score_jobs(jobs, competition=competition, processes=scoring_processes(), done=done)
    return [(subset, None) for subset in skipped] + [(job.subset, result) for job, result in zip(jobs, results)]


@transaction.atomic
def _store(*, submission: Submission, release: QrelsRelease, results: list, claimed_at: datetime) -> bool:
    """Replace the submission's scores and mark it scored, if our claim still holds."""
    if not locked(_ours(submission_id=submission.pk, claimed_at=claimed_at)).exists():
        return False
    Score.objects.filter(submission=submission).delete()
    QueryScores.objects.filter(submission=submission).delete()
    # Only the competition's metrics are scores; Judged@10 (scored_metrics) is kept apart.
    shown = set(submission.phase.competition.metrics)
    Score.objects.bulk_create([Score(submission=submission, subset=subset, metric=metric, value=value)
                               for subset, result in results if result is not None
                               for metric, value in result.means.items() if metric in shown])
    QueryScores.objects.bulk_create([QueryScores(submission=submission, subset=subset,
                                                 values={m: v for m, v in result.per_query.items() if m in shown})
                                     for subset, result in results if result is not None])
    judged_shares_store(submission=submission, results=results)
    _ours(submission_id=submission.pk, claimed_at=claimed_at).update(
        status=Submission.Status.SCORED, qrels_release=release, scored_at=timezone.now(), progress=100,
        status_reason="")
    return True


def _release_claim(*, submission: Submission, claimed_at: datetime, reason: str, retry: bool) -> str:
    """After an error: back to the queue while attempts remain, else failed with the reason."""
    if retry and submission.attempts < settings.CUPBOARD_MAX_ATTEMPTS:
        status = Submission.Status.QUEUED
    else:
        status = Submission.Status.FAILED
    changed = _ours(submission_id=submission.pk, claimed_at=claimed_at).update(
        status=status, status_reason=reason[:2000], progress=0, queued_at=timezone.now())
    if changed and status == Submission.Status.QUEUED:
        submission_enqueue(submission_ids=[submission.pk])
    if changed and status == Submission.Status.FAILED:
        notify_submission(submission_id=submission.pk, event=status)
    return status if changed else "lost-claim"


def submission_score(*, submission_id: int) -> str:
    """Score one submission by id (the Celery task's body). Returns what happened, for logs and tests:
    "skipped" (not claimable: done, taken, or out of attempts), "waiting" (no judgments yet),
    "scored", "rejected", "queued" (will retry), "failed", or "lost-claim"."""
    claimed_at = timezone.now()
    if not _claim(submission_id=submission_id, now=claimed_at):
        return "skipped"  # another worker got there first, or there is nothing left to do
    if transaction.get_connection().in_atomic_block:
        # Scored inside the caller's transaction (load_demo scores each upload at once): the claim
        # is not committed, so no sweeper can see it, and a heartbeat's update of the same row
        # would only wait on that transaction (PostgreSQL: the row lock; SQLite: "database is
        # locked") and make the scoring wait for it in turn: seconds per submission.
        return _score_claimed(submission_id=submission_id, claimed_at=claimed_at)
    ours = _ours(submission_id=submission_id, claimed_at=claimed_at)
    with heartbeat(lambda: ours.update(heartbeat_at=timezone.now()) == 1):
        return _score_claimed(submission_id=submission_id, claimed_at=claimed_at)


def _score_claimed(*, submission_id: int, claimed_at: datetime) -> str:
    submission = Submission.objects.select_related("phase__competition").get(pk=submission_id)
    if settings.CUPBOARD_SCORING_PAUSE and submission.attempts == 1:
        time.sleep(settings.CUPBOARD_SCORING_PAUSE)  # only for the kill-mid-task tests (see settings)
    release = current_qrels_release(submission.phase)
    if release is None:
        # Not a failure: judgments are not in yet. phase_rescore nudges it when they arrive.
        _ours(submission_id=submission_id, claimed_at=claimed_at).update(
            status=Submission.Status.QUEUED, attempts=F("attempts") - 1, status_reason="Waiting for judgments.")
        return "waiting"
    try:
        results = _score_subsets(submission=submission, release=release, claimed_at=claimed_at)
    except RunRejected as rejected:
        changed = _ours(submission_id=submission_id, claimed_at=claimed_at).update(
            status=Submission.Status.REJECTED, status_reason=str(rejected)[:2000], progress=0)
        if changed:
            notify_submission(submission_id=submission_id, event=Submission.Status.REJECTED)
        return "rejected" if changed else "lost-claim"
    except Exception as error:  # noqa: BLE001 - any other error is the platform's fault: retry, then fail
        logger.exception("scoring submission %s failed (attempt %s)", submission_id, submission.attempts)
        reason = f"Scoring failed on attempt {submission.attempts}: {type(error).__name__}: {error}"
        return _release_claim(submission=submission, claimed_at=claimed_at, reason=reason, retry=True)
    if not _store(submission=submission, release=release, results=results, claimed_at=claimed_at):
        return "lost-claim"
    leaderboard_update(phase=submission.phase, submission=submission)
    if current_qrels_release(submission.phase) != release:
        # Judgments changed while we scored: score again with the new ones.
        Submission.objects.filter(pk=submission_id, status=Submission.Status.SCORED).update(
            status=Submission.Status.QUEUED, attempts=0, queued_at=timezone.now())
        submission_enqueue(submission_ids=[submission_id])
    else:
        notify_submission(submission_id=submission_id, event=Submission.Status.SCORED)
    return "scored"


def submission_sweep_stale(*, now: datetime | None = None) -> dict[str, int]:
    """Re-queue scoring claims whose worker said nothing for CUPBOARD_STALE_AFTER seconds, and
    nudge queued submissions whose message seems lost (queued CUPBOARD_RENUDGE_AFTER seconds ago).
    Out of attempts -> failed, with the reason. Nothing is cancelled silently. Returns counts, for the log."""
    now = now or timezone.now()
    old = now - timedelta(seconds=settings.CUPBOARD_RENUDGE_AFTER)
    counts = {"requeued": 0, "renudged": 0, "failed": 0}
    stale = _with_last_sign_of_life().filter(
        _silent_scoring(now)
        | Q(status=Submission.Status.QUEUED) & (Q(queued_at__lt=old) | Q(queued_at__isnull=True, created_at__lt=old)))
    for row in stale.values("pk", "status", "claimed_at", "heartbeat_at", "queued_at", "attempts", "status_reason"):
        # Unchanged since we read it: a heartbeat in between means the worker is alive after all.
        same = Submission.objects.filter(pk=row["pk"], status=row["status"], claimed_at=row["claimed_at"],
                                         heartbeat_at=row["heartbeat_at"], queued_at=row["queued_at"])
        if row["attempts"] >= settings.CUPBOARD_MAX_ATTEMPTS:
            last = row["status_reason"] or "the worker stopped responding"
            reason = f"Gave up after {row['attempts']} scoring attempts. Last problem: {last}"
            failed = same.update(status=Submission.Status.FAILED, status_reason=reason[:2000], progress=0)
            if failed:
                notify_submission(submission_id=row["pk"], event=Submission.Status.FAILED)
            counts["failed"] += failed
            continue
        if row["status"] == Submission.Status.SCORING:
            changed = same.update(status=Submission.Status.QUEUED, queued_at=now, progress=0,
                                  status_reason="The worker stopped responding; queued again.")
            counts["requeued"] += changed
        else:
            changed = same.update(queued_at=now)
            counts["renudged"] += changed
        if changed:
            submission_enqueue(submission_ids=[row["pk"]])
    if counts["requeued"] or counts["failed"]:
        logger.info("sweep_stale: %s", counts)
    return counts
