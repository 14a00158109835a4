"""An execution as a kind of job (cupboard.jobs): the `EXECUTION` declaration and its messages.

Its task is routed to the runner hosts' queue (settings.CELERY_TASK_ROUTES, `-Q systems`), so
only a worker with bubblewrap and the corpus takes it. A runner killed mid-execution stops
beating: the sweep puts the execution back and it runs again from the start (the sandbox is
thrown away with the process, `--die-with-parent`); a stuck one is stopped by the sandbox at
its wall limit, while the runner still beats.
"""
from django.db.models import Q

from cupboard.jobs import JobKind, job_enqueue

from .models import Execution


def _give_up(row: dict) -> dict:
    last = row["status_reason"] or "the runner stopped responding"
    return {"status": Execution.Status.FAILED,
            "status_reason": f"Gave up after {row['attempts']} attempts to run it. Last problem: {last}"[:2000]}


EXECUTION = JobKind(
    name="system execution", model=Execution, task="cupboard.systems.tasks.run_execution",
    waiting=Q(status=Execution.Status.QUEUED), running=Q(status=Execution.Status.RUNNING),
    take={"status": Execution.Status.RUNNING},
    put_back={"status": Execution.Status.QUEUED, "status_reason": "The runner stopped responding; queued to run again."},
    progress=lambda done, total: {}, give_up=_give_up)


def executions_enqueue(*, execution_ids: list[int]) -> None:
    """Send their messages once the current transaction commits (a runner must find the rows);
    a broker that is down is the sweep's to make up for."""
    job_enqueue(EXECUTION, execution_ids)
