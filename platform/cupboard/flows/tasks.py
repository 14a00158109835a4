"""What follows the clock: a reveal or a competition's start is due when its instant passes, and
nobody sends an event for that. This beat task finds what is due and does what follows, across
apps: the competitions' public events, then the leaderboards' final results. And the one beat
task that sweeps every app's kind of job (flows/jobs.py)."""
from celery import shared_task


@shared_task(name="cupboard.flows.tasks.publish_due_events")
def publish_due_events_task() -> int:
    """Write due public events (qrels commitments at the start, reveals at `reveal_at`).
    Idempotent, so a beat schedule of a minute or an hour is equally safe. Pages only
    read (GET never writes): a stopped scheduler delays the log, never the reveal, which
    the clock decides (`Phase.qrels_are_public`). A final phase's reveal also freezes its
    official results and has a second engine verify them (leaderboards/releases.py), once
    any re-scoring of it is published: re-scoring steps whose last run is finished are
    published first (flows/rescored.py: the safety net of a lost run-finished flow)."""
    from cupboard.competitions.commitments import publish_due_everywhere
    from cupboard.leaderboards.releases import final_results_release_due

    from .rescored import open_steps_settle

    open_steps_settle()
    return publish_due_everywhere() + final_results_release_due()


@shared_task(name="cupboard.flows.tasks.sweep_jobs", ignore_result=True)
def sweep_jobs_task() -> dict:
    """Beat, every CUPBOARD_SWEEP_INTERVAL seconds: the stale sweep of every kind of job (flows/jobs.py)."""
    from .jobs import jobs_sweep

    return jobs_sweep()
