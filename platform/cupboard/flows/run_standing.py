"""A run was chosen for the final (or no longer), or disqualified (submissions/services.py):
once that is committed, its team's leaderboard row (or the baseline's own) is recomputed."""
from cupboard import events
from cupboard.submissions.events import RunStandingChanged

from .run_scored import leaderboard_row_update


def connect() -> None:
    events.handle(RunStandingChanged, events.after_commit(leaderboard_row_update, "the leaderboard row"))
