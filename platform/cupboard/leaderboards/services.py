"""Leaderboard writes. (Placeholder until the leaderboards work lands: keeps callers working.)"""


def leaderboard_refresh(*, phase) -> None:
    """Recompute and store the ranked rows of `phase` after its scores changed."""
    return None
