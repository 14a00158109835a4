"""A run of a phase being re-scored is finished (scored, rejected, failed for good): its team's
mail waits for the step, and the step is published once its last run is finished
(leaderboards/rescoring.py). Publishing is followed by the mails of every run of the step (their
new scores are now the board's), and by a freeze of the official results that came due while
the phase was being re-scored (leaderboards/releases.py), from the new scores."""
from cupboard.leaderboards.releases import final_results_release_due
from cupboard.leaderboards.rescoring import open_step_phases, rescore_step_settle
from cupboard.notifications.services import notify_submission
from cupboard.submissions.events import RunFinished
from cupboard.submissions.models import Submission
from cupboard.submissions.steps import in_open_step


def mail_unless_held(event: RunFinished) -> None:
    """The team's mail now, or with the step's publication when the run is one of an open step."""
    submission = Submission.objects.filter(pk=event.submission_id).only("pk", "phase_id").first()
    if submission is not None and not in_open_step(submission):
        notify_submission(submission_id=event.submission_id, event=event.status)


def step_settle(event: RunFinished) -> None:
    phase_id = Submission.objects.filter(pk=event.submission_id).values_list("phase_id", flat=True).first()
    if phase_id is not None:
        phase_step_settle(phase_id)


def phase_step_settle(phase_id: int) -> int:
    """Publish the phase's open step if it is done, with what follows; returns 1 if it was published."""
    from cupboard.competitions.models import Phase

    step = rescore_step_settle(phase=Phase(pk=phase_id))
    if step is None:
        return 0
    finished = Submission.objects.filter(pk__in=step.submission_ids).exclude(status__in=Submission.PENDING)
    for submission_id, status in finished.values_list("pk", "status"):
        notify_submission(submission_id=submission_id, event=status)  # the same outcome twice is no news
    final_results_release_due()
    return 1


def open_steps_settle() -> int:
    """Every open step that is done, published (the beat task's safety net); how many were."""
    return sum(phase_step_settle(phase.pk) for phase in open_step_phases())
