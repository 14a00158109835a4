"""A run was scored (submissions/scoring.py): its Judged@10 shares, then (a follow-up) its team's leaderboard row."""
from cupboard import events
from cupboard.judging.judged import judged_shares_store
from cupboard.leaderboards.services import leaderboard_update
from cupboard.submissions.events import RunScored, RunScoresStored, RunStandingChanged


def _judged_shares_store(event: RunScoresStored) -> None:
    judged_shares_store(submission=event.submission, results=event.results)


def leaderboard_row_update(event: RunScored | RunStandingChanged) -> None:
    leaderboard_update(phase=event.submission.phase, submission=event.submission)


def connect() -> None:
    # In the scoring's transaction, while the worker's claim holds: stored with the scores or not at all.
    events.handle(RunScoresStored, _judged_shares_store)
    # A follow-up written with the scores, carried out once they are committed (in the worker, or
    # in the demo's loading transaction), and retried by a worker until it succeeds.
    events.handle(RunScored, events.after_commit(leaderboard_row_update, "the leaderboard row"))
