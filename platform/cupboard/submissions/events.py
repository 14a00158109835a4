"""What happens to a run (cupboard/events.py): sent by scoring.py, services.py and scoring_kind.py;
what follows each is listed in cupboard/flows/."""
from dataclasses import dataclass

from cupboard.events import Event

from .models import Submission


@dataclass(frozen=True)
class RunScoresStored(Event):
    """Inside the transaction that stores the scores, while the worker's claim holds; `results`
    as scoring stores them, [(subset, SubsetResult or None)] (never stored: no follow-up takes it)."""

    submission: Submission
    results: list


@dataclass(frozen=True)
class RunScored(Event):
    """Its scores are stored, in the same transaction (its follow-ups run once they are committed)."""

    submission: Submission


@dataclass(frozen=True)
class RunFinished(Event):
    """The outcome is final: scored with the current judgments, rejected, or failed for good."""

    submission_id: int
    status: str


@dataclass(frozen=True)
class RunStandingChanged(Event):
    """Chosen for the final or not, disqualified: its team's row may count another run."""

    submission: Submission


@dataclass(frozen=True)
class RunsMoved(Event):
    """A team merge gave the source team's runs to the target (`submissions_move`): the phases they are in."""

    phases: list
