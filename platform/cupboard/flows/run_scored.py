"""A run was scored (submissions/scoring.py): its Judged@10 shares, then (a follow-up) its team's leaderboard row."""
from cupboard import events
from cupboard.judging.judged import judged_shares_store
from cupboard.leaderboards.services import leaderboard_update


def leaderboard_row_update(*, submission) -> None:
    leaderboard_update(phase=submission.phase, submission=submission)


def connect() -> None:
    # In the scoring's transaction, while the worker's claim holds: stored with the scores or not at all.
    events.run_scores_stored.handled_by(judged_shares_store)
    # A follow-up written with the scores, carried out once they are committed (in the worker, or
    # in the demo's loading transaction), and retried by a worker until it succeeds.
    events.run_scored.handled_by(events.after_commit(leaderboard_row_update, "the leaderboard row"))
