"""The official scores, recomputed by a second engine (issue 12).

The evaluator scores every run; pytrec_eval (trec_eval's C code) is the second engine. A
`Verification` recomputes, in the worker, every ranked submission and every baseline of a
phase's leaderboard from its stored run files and the phase's current judgments, and
compares pytrec_eval's mean with the stored Score row, metric by metric and subset by
subset. The tolerance is evaluator/engines/check.py's (1e-9), float32-aware as it is: pytrec_eval
keeps run scores as float32, so where the evaluator fed the same float32 scores agrees with
pytrec_eval and its exact (float64) value is the stored one, the difference is a float32 tie,
counted apart, not a failure. Anything else that differs is listed, loudly.

It runs when a final phase's results are revealed (leaderboards/releases.py; its audit
event is public) and when an organizer asks (the phase's scoring page). The row is the
state: a delivery claims it with one conditional UPDATE, so a second delivery finds it
running or finished and does nothing; a check whose worker died (claimed longer ago than
the task's hard time limit) is claimed again and started over from the stored files. pytrec_eval is imported in the child
process that runs it (evaluator/engines/check.py), never at start-up.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from evaluator.engines.check import TOLERANCE, SecondEngineFailed, second_opinion
from evaluator.io.qrels import read_qrels
from evaluator.engines.scoring import Evaluator

from cupboard.audit.models import AuditEvent
from cupboard.audit.services import audit_record
from cupboard.competitions.models import Phase, QrelsFile, QrelsRelease
from cupboard.competitions.selectors import current_qrels_release
from cupboard.locking import locked

from .models import Score, Submission, Verification
from .scoring_jobs import RunRejected, job_run, may_have_children, subset_jobs

logger = logging.getLogger(__name__)

MAX_LISTED = 50  # differences kept on the row and in the audit event


def verification_request(*, phase: Phase, actor, reason: str) -> Verification:
    """Queue a check of `phase` and nudge the worker after COMMIT. A check still waiting or
    running is returned instead of a second one; the reveal asks at most once per phase."""
    with transaction.atomic():
        pending = phase.verifications.filter(status__in=(Verification.Status.QUEUED, Verification.Status.RUNNING))
        if reason == Verification.Reason.REVEAL:
            verification, created = Verification.objects.get_or_create(phase=phase, reason=reason)
        elif pending.exists():
            verification, created = pending.first(), False
        else:
            verification = Verification.objects.create(phase=phase, reason=reason, requested_by=actor)
            created = True
        if created:
            transaction.on_commit(lambda: verification_nudge(verification_id=verification.pk))
    return verification


def verification_nudge(*, verification_id: int) -> bool:
    """Send the task's message; a broker that is down is logged, and the beat task sends it
    again (`verifications_nudge_waiting`)."""
    from cupboard.celery import send_task_message

    from .tasks import verify_scores

    try:
        send_task_message(verify_scores, verification_id)
    except Exception as error:  # noqa: BLE001 - kombu, redis, amqp and socket errors alike
        logger.warning("verification %s not sent (%s: %s); the beat task sends it again",
                       verification_id, type(error).__name__, error)
        return False
    return True


WAITING = timedelta(minutes=2)    # queued this long: its message may be lost
RENUDGE = timedelta(minutes=10)   # at most one nudge per check in this time


def _abandoned_before(now):
    """A claim older than the task's hard time limit: Celery has killed that run."""
    return now - timedelta(seconds=settings.CELERY_TASK_TIME_LIMIT)


def verifications_nudge_waiting(*, now=None) -> int:
    """Send again the checks whose message seems lost (queued for a while) and those whose
    worker died (claimed longer ago than the hard time limit), each at most once per
    RENUDGE, so a busy queue is not flooded. Run by the beat task beside the reveals."""
    now = now or timezone.now()
    lost = Q(status=Verification.Status.QUEUED, created_at__lt=now - WAITING)
    dead = Q(status=Verification.Status.RUNNING, started_at__lt=_abandoned_before(now))
    due = Verification.objects.filter(lost | dead).filter(Q(nudged_at__isnull=True) | Q(nudged_at__lt=now - RENUDGE))
    ids = list(due.values_list("pk", flat=True))
    Verification.objects.filter(pk__in=ids).update(nudged_at=now)
    return sum(verification_nudge(verification_id=pk) for pk in ids)


def _claim(verification_id: int):
    """The check's start time if this delivery may run it (queued, or its last worker is
    dead), else None: it is finished, or another worker runs it now. One UPDATE."""
    now = timezone.now()
    free = Q(status=Verification.Status.QUEUED) | Q(status=Verification.Status.RUNNING,
                                                   started_at__lt=_abandoned_before(now))
    claimed = Verification.objects.filter(free, pk=verification_id).update(
        status=Verification.Status.RUNNING, started_at=now, done=0)
    return now if claimed else None


@dataclass
class Tally:
    """What the comparison found so far."""

    scores: int = 0
    float32_ties: int = 0
    max_difference: float = 0.0
    differences: list[dict] = field(default_factory=list)
    count: int = 0  # differences, also those past MAX_LISTED

    def differ(self, submission: Submission, code: str, metric: str, problem: str, **numbers) -> None:
        self.count += 1
        if len(self.differences) < MAX_LISTED:
            self.differences.append({"submission": submission.pk, "who": _who(submission), "subset": code,
                                     "metric": metric, "problem": problem, **numbers})

    def compare(self, submission: Submission, code: str, metric: str, stored: float,
                means: tuple[float, float, float]) -> None:
        theirs, ours_float32, exact = means
        self.scores += 1
        difference = abs(stored - theirs)
        if difference <= TOLERANCE:
            self.max_difference = max(self.max_difference, difference)
        elif abs(ours_float32 - theirs) <= TOLERANCE and abs(stored - exact) <= TOLERANCE:
            self.float32_ties += 1
        else:
            self.differ(submission, code, metric, "differs", stored=stored, pytrec_eval=theirs)


def _who(submission: Submission) -> str:
    owner = "baseline" if submission.is_baseline else submission.team.name
    return f"{owner} #{submission.number} ({submission.method_name})"


def _loader(competition):
    """(qrels, Evaluator) per qrels file, read once per check."""
    from evaluator.benchmarks import get_benchmark

    gain = get_benchmark(competition.benchmark).gain
    loaded: dict[int, tuple] = {}

    def load(qrels_file: QrelsFile):
        if qrels_file.pk not in loaded:
            with qrels_file.file.open("rb") as stored:
                qrels = read_qrels(stored, name=qrels_file.original_name)
            loaded[qrels_file.pk] = (qrels, Evaluator(qrels, competition.metrics,
                                                      relevance_level=competition.relevance_level, gain=gain))
        return loaded[qrels_file.pk]
    return load


def _check_submission(submission: Submission, *, release: QrelsRelease, load, tally: Tally) -> None:
    competition = submission.phase.competition
    stored = {(code, metric): value for code, metric, value in
              Score.objects.filter(submission=submission).values_list("subset__code", "metric", "value")}
    if submission.qrels_release_id != release.pk:
        tally.differ(submission, "", "", f"scored against another qrels version than the current v{release.number}"
                                          " (re-score the phase first)")
    jobs, _ = subset_jobs(submission=submission, release=release)
    for job in jobs:
        code = job.subset.code
        qrels, evaluator = load(job.qrels_file)
        try:
            run = job_run(job, competition)
        except RunRejected as error:
            tally.differ(submission, code, "", str(error))
            continue
        for metric, means in second_opinion(evaluator, qrels, run).means(evaluator).items():
            if (code, metric) not in stored:
                tally.differ(submission, code, metric, "no stored score")
            else:
                tally.compare(submission, code, metric, stored[(code, metric)], means)


def verification_run(*, verification_id: int) -> str:
    """The worker's side: recompute and compare every leaderboard submission of the phase,
    with progress on the row, then record the outcome (audit event). Idempotent."""
    claimed_at = _claim(verification_id)
    if claimed_at is None:
        return "finished, or running elsewhere"
    verification = Verification.objects.select_related("phase__competition").get(pk=verification_id)
    phase = verification.phase
    release = current_qrels_release(phase)
    # The phase's leaderboard rows, through the relation leaderboards declares on Phase (that app sits above).
    ids = phase.leaderboard_rows.values("submission_id")
    submissions = list(Submission.objects.filter(pk__in=ids).select_related("team", "phase__competition")
                       .order_by("is_baseline", "pk"))
    Verification.objects.filter(pk=verification.pk).update(
        total=len(submissions), qrels_release_number=release.number if release else None)
    tally, failure = Tally(), ""
    if release is None:
        failure = "the phase has no judgments"
    else:
        load = _loader(phase.competition)
        try:
            with may_have_children():
                for done, submission in enumerate(submissions, start=1):
                    _check_submission(submission, release=release, load=load, tally=tally)
                    Verification.objects.filter(pk=verification.pk).update(done=done)
        except SecondEngineFailed as error:
            failure = f"the second engine could not run: {error}"
    return _finish(verification_id=verification.pk, claimed_at=claimed_at, tally=tally, failure=failure,
                   submissions=len(submissions))


def _summary(phase: Phase, tally: Tally, *, failure: str, submissions: int) -> str:
    if failure:
        return f"{phase.name}: verification by a second engine FAILED: {failure}"
    if tally.count:
        listed = "; ".join(f"{d['who']} {d['subset']} {d['metric']}: {d['problem']}"
                           + (f" (stored {d['stored']:.6f}, pytrec_eval {d['pytrec_eval']:.6f})" if "stored" in d else "")
                           for d in tally.differences[:3])
        return (f"{phase.name}: SECOND ENGINE DISAGREES on {tally.count} of {tally.scores} scores "
                f"({submissions} submissions): {listed}")
    ties = f"; {tally.float32_ties} differ only by float32 ties" if tally.float32_ties else ""
    return (f"{phase.name}: verified by a second engine (pytrec_eval): {submissions} submissions, "
            f"{tally.scores} scores, max difference {tally.max_difference:.1e}{ties}")


@transaction.atomic
def _finish(*, verification_id: int, claimed_at, tally: Tally, failure: str, submissions: int) -> str:
    """Store the outcome and write the audit event, once: only while our claim holds (the
    row lock, its status and its start time)."""
    verification = (locked(Verification.objects.filter(pk=verification_id, status=Verification.Status.RUNNING,
                                                       started_at=claimed_at))
                    .select_related("phase__competition").first())
    if verification is None:
        return "taken over by another delivery"
    phase = verification.phase
    passed = not failure and not tally.count
    differences = ([{"problem": failure}] if failure else []) + tally.differences
    Verification.objects.filter(pk=verification.pk).update(
        status=Verification.Status.PASSED if passed else Verification.Status.FAILED, finished_at=timezone.now(),
        scores=tally.scores, max_difference=tally.max_difference if tally.scores else None,
        float32_ties=tally.float32_ties, differences=differences)
    summary = _summary(phase, tally, failure=failure, submissions=submissions)
    (logger.info if passed else logger.error)("%s", summary)
    audit_record(competition=phase.competition, actor=verification.requested_by, action=AuditEvent.Action.VERIFIED,
                 is_public=verification.reason == Verification.Reason.REVEAL, summary=summary,
                 details={"phase": phase.slug, "verification": verification.pk, "passed": passed,
                          "submissions": submissions, "scores": tally.scores, "differences": tally.count,
                          "max_difference": tally.max_difference, "float32_ties": tally.float32_ties,
                          "qrels_version": verification.qrels_release_number, "listed": differences})
    return "passed" if passed else "failed"
