"""Re-scoring steps (`RescoreStep`): the reads every part that must not show, freeze or mail a
half-finished re-score asks. The step is opened by `phase_rescore` (services.py) and published
by the leaderboards (leaderboards/rescoring.py), which switch the phase's board at once."""
from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Q

from cupboard.competitions.models import Phase
from cupboard.competitions.selectors import current_qrels_release

from .models import RescoreStep, Submission


@dataclass(frozen=True, slots=True)
class StepProgress:
    """An open step as the pages say it: "being re-scored, done of total"."""

    number: int
    done: int
    total: int

    def as_dict(self) -> dict:
        return {"step": self.number, "done": self.done, "total": self.total}

    def __str__(self) -> str:
        return f"being re-scored, {self.done} of {self.total}"


def open_step(phase: Phase | int) -> RescoreStep | None:
    """The phase's open re-scoring step, if any (at most one: a constraint)."""
    phase_id = phase if isinstance(phase, int) else phase.pk
    return RescoreStep.objects.filter(phase_id=phase_id, closed_at__isnull=True).first()


def step_pending(step: RescoreStep) -> int:
    """How many of the step's runs are not finished: queued, being scored, or scored by a claim
    older than the step or with judgments older than the phase's current ones (a run being
    scored when the step opened is stored, then queued again by its worker: scoring.py; in
    between it is not done)."""
    current = current_qrels_release(step.phase)
    behind = Q(claimed_at__lt=step.opened_at) | (~Q(qrels_release=current) if current else Q(pk__in=[]))
    return Submission.objects.filter(Q(status__in=Submission.PENDING) | Q(status=Submission.Status.SCORED) & behind,
                                     pk__in=step.submission_ids).count()


def rescored_since(submission: Submission, claimed_at) -> bool:
    """Whether a step of the submission's phase that includes it opened after `claimed_at` (the
    scoring claim's instant): what the worker stored is from before it (other topics, or the
    organizer asked to score again), so the run is scored again."""
    step = open_step(submission.phase_id)
    return step is not None and step.opened_at > claimed_at and submission.pk in step.submission_ids


def step_progress(phase: Phase | int) -> StepProgress | None:
    """The open step's progress, or None when the phase is not being re-scored."""
    step = open_step(phase)
    if step is None:
        return None
    return StepProgress(number=step.number, done=step.total - step_pending(step), total=step.total)


def in_open_step(submission: Submission) -> bool:
    """Whether `submission` is one of the runs of its phase's open step (its news waits for the step)."""
    step = open_step(submission.phase_id)
    return step is not None and submission.pk in step.submission_ids


def scoring_version(phase: Phase) -> int:
    """The number of the phase's last published step: 0 while its runs were only ever scored once."""
    last = phase.rescore_steps.filter(outcome=RescoreStep.Outcome.PUBLISHED).order_by("-number").first()
    return last.number if last else 0
