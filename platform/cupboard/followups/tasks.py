"""Celery tasks: thin wrappers that import their service inside the body."""
from celery import shared_task
from django.conf import settings


@shared_task(acks_late=True, reject_on_worker_lost=True, ignore_result=True,
             soft_time_limit=settings.CELERY_TASK_SOFT_TIME_LIMIT, time_limit=settings.CELERY_TASK_TIME_LIMIT)
def carry_out(follow_up_id: int) -> str:
    from .services import follow_up_carry_out

    return follow_up_carry_out(follow_up_id=follow_up_id)
