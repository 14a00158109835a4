"""The worker side: scoring one submission, and sweeping up work that went stale.

Scoring is a job kind of the engine (cupboard.jobs, `SCORING`): a worker claims the
submission row with a fencing token and proceeds only if it changed one row; it writes
scores and the final state only while its claim still holds, so running the task twice, or
a second worker taking over stale work, is harmless. The scoring process beats in a thread
while it works and after each subset, so a long job keeps its claim while its process lives;
work of a worker process of this host that no longer exists is taken over at once. The
sweeper re-queues work whose worker went silent for CUPBOARD_STALE_AFTER seconds and sends
again a queued submission whose message seems lost (CUPBOARD_RESEND_AFTER seconds).

An outage met while scoring (the storage endpoint, or the database, unreachable) is no fault of
the run: the submission goes back to the queue without spending an attempt, and no message is
sent at once (it would fail again within the second); the sweep sends its message again after
CUPBOARD_RESEND_AFTER seconds, by when the part is usually back.
"""
import logging
from datetime import datetime, timedelta

from django.conf import settings
from django.db.models import F
from django.utils import timezone

from cupboard import events
from cupboard.competitions.models import Competition, QrelsRelease
from cupboard.competitions.selectors import current_qrels_release
from cupboard.followups.services import carried_out_at_exit
from cupboard.jobs import Claim, job_claim, job_sweep
from cupboard.locking import locked
from cupboard.outages import OUTAGES

from .events import RunFinished, RunScored, RunScoresStored
from .models import QueryScores, Score, Submission
from .scoring_jobs import RunRejected, score_jobs, scoring_processes, subset_jobs
from .scoring_kind import SCORING, submission_enqueue
from .steps import rescored_since

logger = logging.getLogger(__name__)


# Progress (and the heartbeat it is) written at most this often while subsets finish, and at
# the end: a run of 18 small subsets wrote 18 UPDATEs in a second (2,864 in load_demo).
PROGRESS_EVERY = timedelta(seconds=1)


def _score_subsets(*, submission: Submission, release: QrelsRelease, claim: Claim) -> tuple[list, dict[int, float]]:
    """(subset, SubsetResult or None) per qrels file (None = no run and the competition marks it
    incomplete), and the seconds each subset took to score, by subset id.
    Subsets are scored side by side within the worker's budget (scoring_jobs.py); each one
    finished is a heartbeat too, so the sweeper leaves a long job alone while it moves."""
    competition: Competition = submission.phase.competition
    jobs, skipped = subset_jobs(submission=submission, release=release)

    written = [timezone.now()]

    def done(finished: int, total: int) -> None:
        now = timezone.now()
        if finished < total and now - written[0] < PROGRESS_EVERY:
            return
        written[0] = now
        claim.progress(finished + len(skipped), total + len(skipped))

    timed = score_jobs(jobs, competition=competition, processes=scoring_processes(), done=done)
    return ([(subset, None) for subset in skipped]
            + [(job.subset, result) for job, (result, _) in zip(jobs, timed, strict=True)],
            {job.subset.pk: seconds for job, (_, seconds) in zip(jobs, timed, strict=True)})


def _store(*, submission: Submission, release: QrelsRelease, results: list, claim: Claim,
           seconds: dict[int, float] | None = None) -> str:
    """Replace the submission's scores and mark it scored, if our claim still holds, with what
    must follow (its board row; its mail, unless the judgments changed meanwhile) written down in
    the same transaction and carried out once it commits (cupboard.followups). Returns "scored",
    "stale" (scored with judgments replaced, or the phase re-scored, meanwhile) or "lost-claim"."""
    with carried_out_at_exit():
        return _store_claimed(submission=submission, release=release, results=results, claim=claim, seconds=seconds)


def _store_claimed(*, submission: Submission, release: QrelsRelease, results: list, claim: Claim,
                   seconds: dict[int, float] | None) -> str:
    if not locked(claim.rows()).exists():
        return "lost-claim"
    Score.objects.filter(submission=submission).delete()
    QueryScores.objects.filter(submission=submission).delete()
    # Only the competition's metrics are scores; Judged@10 (scored_metrics) is kept apart.
    shown = set(submission.phase.competition.metrics)
    Score.objects.bulk_create([Score(submission=submission, subset=subset, metric=metric, value=value)
                               for subset, result in results if result is not None
                               for metric, value in result.means.items() if metric in shown])
    QueryScores.objects.bulk_create([QueryScores(submission=submission, subset=subset,
                                                 values={m: v for m, v in result.per_query.items() if m in shown},
                                                 seconds=(seconds or {}).get(subset.pk), removed=result.removed)
                                     for subset, result in results if result is not None])
    events.send(RunScoresStored(submission=submission, results=results))  # Judged@10 (cupboard/flows/)
    claim.update(status=Submission.Status.SCORED, qrels_release=release, scored_at=timezone.now(), progress=100,
                 status_reason="")
    events.send(RunScored(submission=submission))  # its leaderboard row (cupboard/flows/run_scored.py)
    if current_qrels_release(submission.phase) != release or rescored_since(submission, claim.token):
        return "stale"
    events.send(RunFinished(submission_id=submission.pk, status=Submission.Status.SCORED))
    return "scored"


def _release_claim(*, submission: Submission, claim: Claim, reason: str, retry: bool) -> str:
    """After an error: back to the queue while attempts remain, else failed with the reason."""
    if retry and submission.attempts < settings.CUPBOARD_MAX_ATTEMPTS:
        status = Submission.Status.QUEUED
    else:
        status = Submission.Status.FAILED
    with carried_out_at_exit():
        changed = claim.update(status=status, status_reason=reason[:2000], progress=0, queued_at=timezone.now())
        if changed and status == Submission.Status.QUEUED:
            submission_enqueue(submission_ids=[submission.pk])
        if changed and status == Submission.Status.FAILED:
            events.send(RunFinished(submission_id=submission.pk, status=status))
    return status if changed else "lost-claim"


def submission_score(*, submission_id: int) -> str:
    """Score one submission by id (the Celery task's body). Returns what happened, for logs and tests:
    "skipped" (not claimable: done, taken, or out of attempts), "waiting" (no judgments yet),
    "scored", "rejected", "queued" (will retry), "failed", or "lost-claim"."""
    claim = job_claim(SCORING, submission_id)
    if claim is None:
        return "skipped"  # another worker got there first, or there is nothing left to do
    # Inside the caller's transaction (load_demo scores each upload at once) it does not beat.
    with claim.heartbeat():
        return _score_claimed(claim)


def _score_claimed(claim: Claim) -> str:
    submission_id = claim.pk
    submission = Submission.objects.select_related("phase__competition").get(pk=submission_id)
    release = current_qrels_release(submission.phase)
    if release is None:
        # Not a failure: judgments are not in yet. phase_rescore sends its message again when they arrive.
        claim.update(status=Submission.Status.QUEUED, attempts=F("attempts") - 1,
                     status_reason=Submission.WAITING_FOR_JUDGMENTS)
        return "waiting"
    try:
        results, seconds = _score_subsets(submission=submission, release=release, claim=claim)
    except RunRejected as rejected:
        with carried_out_at_exit():
            changed = claim.update(status=Submission.Status.REJECTED, status_reason=str(rejected)[:2000], progress=0)
            if changed:
                events.send(RunFinished(submission_id=submission_id, status=Submission.Status.REJECTED))
        return "rejected" if changed else "lost-claim"
    except OUTAGES as error:
        logger.warning("scoring submission %s waits out an outage: %s: %s", submission_id, type(error).__name__, error)
        changed = claim.update(status=Submission.Status.QUEUED, attempts=F("attempts") - 1, progress=0,
                               status_reason=f"Storage or database unreachable ({type(error).__name__}); queued again.",
                               queued_at=timezone.now())
        return "queued" if changed else "lost-claim"
    except Exception as error:  # noqa: BLE001 - any other error is the platform's fault: retry, then fail
        logger.exception("scoring submission %s failed (attempt %s)", submission_id, submission.attempts)
        reason = f"Scoring failed on attempt {submission.attempts}: {type(error).__name__}: {error}"
        return _release_claim(submission=submission, claim=claim, reason=reason, retry=True)
    stored = _store(submission=submission, release=release, results=results, claim=claim, seconds=seconds)
    if stored == "lost-claim":
        return stored
    # Asked again once committed: a re-score that opened while the store ran is seen only now.
    if stored == "stale" or current_qrels_release(submission.phase) != release or rescored_since(submission,
                                                                                                   claim.token):
        # Judgments changed, or the phase was re-scored (steps.py), while we scored: score again.
        Submission.objects.filter(pk=submission_id, status=Submission.Status.SCORED).update(
            status=Submission.Status.QUEUED, attempts=0, queued_at=timezone.now(), waiting_since=timezone.now())
        submission_enqueue(submission_ids=[submission_id])
    return "scored"


def submission_sweep_stale(*, now: datetime | None = None) -> dict[str, int]:
    """Re-queue scoring claims whose worker said nothing for CUPBOARD_STALE_AFTER seconds, and
    send again the messages of queued submissions that seem lost (queued CUPBOARD_RESEND_AFTER seconds ago).
    Out of attempts -> failed, with the reason. Nothing is cancelled silently. Returns counts, for the log."""
    return job_sweep(SCORING, now=now)
