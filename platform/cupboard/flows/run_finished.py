"""A run's outcome is final (scored with the current judgments, rejected, failed for good): its
team hears of it, unless the run is one of a phase's open re-scoring step: then its mail waits
for the step, which this run may complete (cupboard/flows/rescored.py)."""
from cupboard import events
from cupboard.submissions.events import RunFinished

from .rescored import mail_unless_held, step_settle


def connect() -> None:
    # Follow-ups of the transaction that makes the outcome final: never lost, retried until done.
    events.handle(RunFinished, events.after_commit(mail_unless_held, "the team's mail"),
                  events.after_commit(step_settle, "the re-scoring step's publication"))
