"""A phase's re-score published as one step.

`phase_rescore` (submissions/services.py) queues a phase's runs again as one `RescoreStep`.
While it is open, everything public about the phase stands still on the scores from before it:
the leaderboard rows and their history are not written (services.py), so the page, its JSON,
CSV, charts and history show the old values, marked "being re-scored, k of N"; the team's
mails of the step's runs wait (cupboard/flows/rescored.py); the official results are not frozen,
and archives and verifications wait in their queues (releases.py, archive.py,
submissions/verification.py). When its last run is finished (scored, rejected or failed),
`rescore_step_settle` closes the step and rebuilds the board once, in one transaction under the
phase lock: a reader sees all-old or all-new values, and the history gets one change per value
that really changed. Then the waiting archives and verifications are sent to the workers.

Who settles: the flow of every finished run (cupboard/flows/rescored.py), and the beat task
`publish_due_events` for every open step (a lost message or a crashed handler costs at most
one sweep interval).
"""
from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from cupboard.competitions.models import Phase
from cupboard.jobs import job_send
from cupboard.leaderboards.models import ResultsArchive
from cupboard.leaderboards.services import leaderboard_bump, leaderboard_refresh
from cupboard.locking import locked
from cupboard.submissions.models import RescoreStep, Verification
from cupboard.submissions.steps import open_step, step_pending


def rescore_step_settle(*, phase: Phase) -> RescoreStep | None:
    """Publish the phase's open step if none of its runs is pending any more: the step closed
    and the board rebuilt from the new scores, in one transaction. Returns the step published
    by this call, else None (no step, or runs still pending: the version is bumped so the
    pages' "k of N" moves). Idempotent, and safe from any number of workers at once."""
    with transaction.atomic():
        phase = locked(Phase.objects.select_related("competition")).get(pk=phase.pk)
        step = open_step(phase)
        if step is None:
            return None
        if step_pending(step):
            leaderboard_bump(phase=phase)
            return None
        RescoreStep.objects.filter(pk=step.pk).update(closed_at=timezone.now(), outcome=RescoreStep.Outcome.PUBLISHED)
        leaderboard_refresh(phase=phase)  # the step is closed: this rebuild writes, once
        transaction.on_commit(lambda: _waiting_jobs_send(phase))
    step.refresh_from_db()
    return step


def open_step_phases() -> list[Phase]:
    """Every phase with an open step, for the beat task's settling."""
    return list(Phase.objects.filter(rescore_steps__closed_at__isnull=True).select_related("competition"))


def _waiting_jobs_send(phase: Phase) -> None:
    """The archives and verifications that waited for the step, sent to the workers now."""
    from cupboard.leaderboards.archive import RESULTS_ARCHIVE
    from cupboard.submissions.verification import VERIFICATION

    job_send(RESULTS_ARCHIVE, list(phase.results_archives.filter(status=ResultsArchive.Status.QUEUED)
                                   .values_list("pk", flat=True)))
    job_send(VERIFICATION, list(phase.verifications.filter(status=Verification.Status.QUEUED)
                                .values_list("pk", flat=True)))
