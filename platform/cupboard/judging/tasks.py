"""Celery tasks of the judging cycle: thin, the row is the truth (see judging/pools.py)."""
from celery import shared_task
from django.conf import settings


@shared_task(acks_late=True, reject_on_worker_lost=True, ignore_result=True,
             soft_time_limit=settings.CELERY_TASK_SOFT_TIME_LIMIT, time_limit=settings.CELERY_TASK_TIME_LIMIT)
def build_pool_export(export_id: int) -> str:
    from .pools import pool_export_build

    return pool_export_build(export_id=export_id)

