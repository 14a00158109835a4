"""A run's outcome is final (scored with the current judgments, rejected, failed for good): its team hears of it."""
from cupboard import events
from cupboard.notifications.services import notify_submission


def _notify_team(*, submission_id: int, status: str) -> None:
    notify_submission(submission_id=submission_id, event=status)


def connect() -> None:
    events.run_finished.handled_by(_notify_team)
