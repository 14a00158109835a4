"""A run's outcome is final (scored with the current judgments, rejected, failed for good): its
team hears of it, unless the run is one of a phase's open re-scoring step: then its mail waits
for the step, which this run may complete (cupboard/flows/rescored.py)."""
from cupboard import events

from .rescored import mail_unless_held, step_settle


def connect() -> None:
    events.run_finished.handled_by(mail_unless_held, step_settle)
