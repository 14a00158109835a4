"""Celery tasks of the runner hosts (`celery -A cupboard worker -Q systems`): a message carries
an execution's id; the row says what to do (execution.py). Routed to the systems queue by
settings.CELERY_TASK_ROUTES; acks_late and reject_on_worker_lost bring a killed runner's
message back, and the claim makes a second delivery harmless. Its time limit leaves the
sandbox's wall limit room to stop the system first and record why."""
from celery import shared_task
from django.conf import settings

# Unpacking the image and storing the run, besides the system's own wall time.
MARGIN_SECONDS = 600


@shared_task(acks_late=True, reject_on_worker_lost=True, ignore_result=True,
             soft_time_limit=settings.CUPBOARD_SYSTEM_WALL_SECONDS + MARGIN_SECONDS,
             time_limit=settings.CUPBOARD_SYSTEM_WALL_SECONDS + 2 * MARGIN_SECONDS)
def run_execution(execution_id: int) -> str:
    from .execution import execution_run

    return execution_run(execution_id=execution_id)
