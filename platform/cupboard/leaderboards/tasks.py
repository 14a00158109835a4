"""Celery tasks: thin wrappers that import their service inside the body."""
from celery import shared_task


@shared_task(ignore_result=True)
def refresh_leaderboard(phase_id: int) -> None:
    """Rebuild one phase's rows; harmless to run twice (the refresh is idempotent)."""
    from cupboard.competitions.models import Phase

    from .services import leaderboard_refresh

    phase = Phase.objects.filter(pk=phase_id).first()
    if phase is not None:  # deleted since the nudge was sent
        leaderboard_refresh(phase=phase)
