"""The official scores, recomputed by a second engine (issue 12).

The evaluator scores every run; pytrec_eval (trec_eval's C code) is the second engine. A
`Verification` recomputes, in the worker, every counted run of a phase (scored and not
disqualified: each team's every run, as a TREC overview lists them, and the baselines; not
only the one on the leaderboard) from its stored run files and the phase's current judgments, and
compares pytrec_eval's mean with the stored Score row, metric by metric and subset by
subset; the check lists each run with what it compared and found (`Verification.runs`). The tolerance is evaluator/engines/check.py's (1e-9), float32-aware as it is: pytrec_eval
keeps run scores as float32, so where the evaluator fed the same float32 scores agrees with
pytrec_eval and its exact (float64) value is the stored one, the difference is a float32 tie,
counted apart, not a failure. Anything else that differs is listed, loudly.

It runs when a final phase's results are revealed (leaderboards/releases.py; its audit
event is public) and when an organizer asks (the phase's scoring page). It is a job kind of
the engine (cupboard.jobs, `VERIFICATION`): a delivery claims the row with a fencing token,
so a second delivery finds it running or finished and does nothing; the worker beats while
it checks, and a check whose worker died is claimed again (at once on its host, else once
silent) and started over from the stored files, the dead worker's late outcome refused; a
lost message is sent again by the sweeper (`verifications_sweep`, beat). pytrec_eval is
imported in the child process that runs it (evaluator/engines/check.py), never at start-up.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass, field

from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from cupboard.audit.details import named
from cupboard.audit.models import AuditEvent
from cupboard.audit.services import audit_record
from cupboard.competitions.models import Phase, QrelsRelease
from cupboard.competitions.selectors import current_qrels_release
from cupboard.jobs import Claim, JobKind, job_claim, job_enqueue, job_sweep
from cupboard.locking import locked
from evaluator.engines.check import TOLERANCE, SecondEngineFailed, second_opinion
from evaluator.engines.scoring import Evaluator

from .models import Score, Submission, Verification
from .scoring_jobs import RunRejected, SubsetJob, job_qrels, job_run, may_have_children, subset_jobs
from .steps import open_step

logger = logging.getLogger(__name__)

MAX_LISTED = 50  # differences kept on the row and in the audit event


def _give_up(row: dict) -> dict:
    problem = f"gave up after {row['attempts']} attempts: its worker stopped responding"
    return {"status": Verification.Status.FAILED, "finished_at": timezone.now(), "differences": [{"problem": problem}]}


def _gave_up(verification_id: int) -> None:
    """Said in the audit log as any other outcome (publicly for the reveal's check)."""
    verification = Verification.objects.select_related("phase__competition", "requested_by").get(pk=verification_id)
    _audit(verification, Tally(), failure=verification.differences[0]["problem"], submissions=verification.total)


VERIFICATION = JobKind(
    name="verification", model=Verification, task="cupboard.submissions.tasks.verify_scores",
    waiting=Q(status=Verification.Status.QUEUED), running=Q(status=Verification.Status.RUNNING),
    take={"status": Verification.Status.RUNNING, "done": 0}, put_back={"status": Verification.Status.QUEUED, "done": 0},
    progress=lambda done, total: {"done": done, "total": total},
    give_up=_give_up, gave_up=_gave_up)


def verification_request(*, phase: Phase, actor, reason: str) -> Verification:
    """Queue a check of `phase` and send its message after COMMIT. A check still waiting or
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
            job_enqueue(VERIFICATION, [verification.pk])
    return verification


def verifications_sweep(*, now=None) -> dict[str, int]:
    """Checks whose worker went silent queued again, lost messages sent again (beat)."""
    return job_sweep(VERIFICATION, now=now)


@dataclass
class Tally:
    """What the comparison found so far."""

    scores: int = 0
    float32_ties: int = 0
    max_difference: float = 0.0
    differences: list[dict] = field(default_factory=list)
    count: int = 0  # differences, also those past MAX_LISTED
    runs: dict[int, dict] = field(default_factory=dict)  # per run checked: its line of the check's list

    def run(self, submission: Submission) -> dict:
        """The run's line: who, scores compared, differences, the largest agreeing difference."""
        return self.runs.setdefault(submission.pk, {"submission": submission.pk, "who": str(submission),
                                                    "scores": 0, "differences": 0, "max_difference": 0.0})

    def differ(self, submission: Submission, code: str, metric: str, problem: str, **numbers) -> None:
        self.count += 1
        self.run(submission)["differences"] += 1
        if len(self.differences) < MAX_LISTED:
            self.differences.append({"submission": submission.pk, "who": str(submission), "subset": code,
                                     "metric": metric, "problem": problem, **numbers})

    def compare(self, submission: Submission, code: str, metric: str, stored: float,
                means: tuple[float, float, float]) -> None:
        theirs, ours_float32, exact = means
        self.scores += 1
        line = self.run(submission)
        line["scores"] += 1
        difference = abs(stored - theirs)
        if difference <= TOLERANCE:
            self.max_difference = max(self.max_difference, difference)
            line["max_difference"] = max(line["max_difference"], difference)
        elif abs(ours_float32 - theirs) <= TOLERANCE and abs(stored - exact) <= TOLERANCE:
            self.float32_ties += 1
        else:
            self.differ(submission, code, metric, "differs", stored=stored, pytrec_eval=theirs)


def _loader(competition):
    """(qrels, Evaluator) per qrels file, read once per check."""
    from evaluator.benchmarks import get_benchmark

    gain = get_benchmark(competition.benchmark).gain
    loaded: dict[tuple, tuple] = {}

    def load(job: SubsetJob):
        key = (job.qrels_file.pk, job.topic_set and job.topic_set.pk)
        if key not in loaded:
            qrels = job_qrels(job)  # the judgments scoring used: those of the topics' queries
            loaded[key] = (qrels, Evaluator(qrels, competition.metrics, depth=competition.scored_depth(),
                                            relevance_level=competition.relevance_level, gain=gain))
        return loaded[key]
    return load


def _check_submission(submission: Submission, *, release: QrelsRelease, load, tally: Tally) -> None:
    competition = submission.phase.competition
    tally.run(submission)  # listed even when it has nothing to compare
    stored = {(code, metric): value for code, metric, value in
              Score.objects.filter(submission=submission).values_list("subset__code", "metric", "value")}
    if submission.qrels_release_id != release.pk:
        tally.differ(submission, "", "", f"scored against another qrels version than the current v{release.number}"
                                          " (re-score the phase first)")
    jobs, _ = subset_jobs(submission=submission, release=release)
    for job in jobs:
        code = job.subset.code
        qrels, evaluator = load(job)
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
    claim = job_claim(VERIFICATION, verification_id)
    if claim is None:
        return "finished, or running elsewhere"
    if open_step(Verification.objects.values_list("phase_id", flat=True).get(pk=verification_id)) is not None:
        # Half the scores are new: checked once the step is published (it sends this again).
        claim.update(status=Verification.Status.QUEUED, done=0, attempts=F("attempts") - 1)
        return "waiting for the re-scoring"
    with claim.heartbeat():
        return _verify(claim)


def _verify(claim: Claim) -> str:
    phase = Verification.objects.select_related("phase__competition").get(pk=claim.pk).phase
    release = current_qrels_release(phase)
    # Every counted run, not only each team's leaderboard row: the official results, the
    # paper tables and the archive's record are made of them all.
    submissions = list(Submission.objects.filter(phase=phase, status=Submission.Status.SCORED, disqualified=False)
                       .select_related("team", "phase__competition").order_by("is_baseline", "pk"))
    claim.update(total=len(submissions), qrels_release_number=release.number if release else None)
    tally, failure = Tally(), ""
    if release is None:
        failure = "the phase has no judgments"
    else:
        load = _loader(phase.competition)
        try:
            with may_have_children():
                for done, submission in enumerate(submissions, start=1):
                    _check_submission(submission, release=release, load=load, tally=tally)
                    claim.progress(done, len(submissions))
        except SecondEngineFailed as error:
            failure = f"the second engine could not run: {error}"
    return _finish(claim, tally=tally, failure=failure, submissions=len(submissions))


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
def _finish(claim: Claim, *, tally: Tally, failure: str, submissions: int) -> str:
    """Store the outcome and write the audit event, once: only while our claim holds (the
    row lock, its status and its token)."""
    verification = locked(claim.rows()).select_related("phase__competition", "requested_by").first()
    if verification is None:
        return "taken over by another delivery"
    passed = not failure and not tally.count
    differences = ([{"problem": failure}] if failure else []) + tally.differences
    claim.update(status=Verification.Status.PASSED if passed else Verification.Status.FAILED,
                 finished_at=timezone.now(), scores=tally.scores,
                 max_difference=tally.max_difference if tally.scores else None, float32_ties=tally.float32_ties,
                 differences=differences, runs=list(tally.runs.values()))
    _audit(verification, tally, failure=failure, submissions=submissions)
    return "passed" if passed else "failed"


def _audit(verification: Verification, tally: Tally, *, failure: str, submissions: int) -> None:
    phase = verification.phase
    passed = not failure and not tally.count
    differences = ([{"problem": failure}] if failure else []) + tally.differences
    summary = _summary(phase, tally, failure=failure, submissions=submissions)
    (logger.info if passed else logger.error)("%s", summary)
    audit_record(competition=phase.competition, actor=verification.requested_by, action=AuditEvent.Action.VERIFIED,
                 is_public=verification.reason == Verification.Reason.REVEAL, summary=summary,
                 details={**named("phase", phase.slug, phase.name), "verification_id": verification.pk, "passed": passed,
                          "submissions": submissions, "scores": tally.scores, "differences": tally.count,
                          "max_difference": tally.max_difference, "float32_ties": tally.float32_ties,
                          "qrels_version": verification.qrels_release_number, "listed": differences})
