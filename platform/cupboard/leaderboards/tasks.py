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


@shared_task(name="cupboard.leaderboards.tasks.refresh_stale_leaderboards", ignore_result=True)
def refresh_stale_leaderboards() -> list[int]:
    """Run by beat: rebuild every leaderboard computed before a surprise group's reveal, so
    ranks count the new columns without anyone at the keyboard. Returns the phase ids."""
    from cupboard.competitions.models import Phase

    from .services import leaderboard_refresh
    from .staleness import stale_phase_ids

    refreshed = []
    for phase in Phase.objects.filter(pk__in=stale_phase_ids()):
        leaderboard_refresh(phase=phase)
        refreshed.append(phase.pk)
    return refreshed
