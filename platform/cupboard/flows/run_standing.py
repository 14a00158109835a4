"""A run was chosen for the final (or no longer), or disqualified (submissions/services.py):
once that is committed, its team's leaderboard row (or the baseline's own) is recomputed."""
from cupboard import events

from .run_scored import leaderboard_row_update


def connect() -> None:
    events.run_standing_changed.handled_by(events.after_commit(leaderboard_row_update, "the leaderboard row"))
