"""Celery tasks: thin wrappers that import their service inside the body."""
from celery import shared_task
from django.conf import settings


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


@shared_task(acks_late=True, reject_on_worker_lost=True, ignore_result=True,
             soft_time_limit=settings.CELERY_TASK_SOFT_TIME_LIMIT, time_limit=settings.CELERY_TASK_TIME_LIMIT)
def build_results_archive(archive_id: int) -> str:
    from .archive import results_archive_build

    return results_archive_build(archive_id=archive_id)



@shared_task(acks_late=True, reject_on_worker_lost=True, ignore_result=True,
             soft_time_limit=settings.CELERY_TASK_SOFT_TIME_LIMIT, time_limit=settings.CELERY_TASK_TIME_LIMIT)
def compute_bands(job_id: int) -> str:
    from .bands import bands_compute

    return bands_compute(job_id=job_id)
