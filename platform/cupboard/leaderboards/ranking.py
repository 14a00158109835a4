"""Which submission counts for a team, and in what order rows are ranked.

Pure functions over already-scored candidates, so each ranking policy can be read (and
tested) apart from the database. Ties are broken by submission time: the team that got
there first keeps the higher place, and the order never depends on row ids alone.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime


@dataclass(frozen=True, slots=True)
class Candidate:
    """A scored submission with what its leaderboard row would show."""

    submission_id: int
    team_id: int | None
    created_at: datetime
    selected_for_final: bool
    values: dict[str, dict[str, float]]
    averages: dict[str, dict[str, float | None]]
    primary_value: float | None


def order_key(value: float | None, created_at: datetime, submission_id: int) -> tuple:
    """Higher value first; an incomplete (None) value after every number; then the earlier
    submission, then the lower id (same instant)."""
    return (value is None, -(value or 0.0), created_at, submission_id)


def rank_key(candidate: Candidate) -> tuple:
    return order_key(candidate.primary_value, candidate.created_at, candidate.submission_id)


def _latest(candidates: list[Candidate]) -> Candidate:
    return max(candidates, key=lambda c: (c.created_at, c.submission_id))


def counted_candidate(candidates: list[Candidate], *, ranking: str) -> Candidate:
    """The one submission of a team that its row shows, per its phase's `Phase.Ranking`:

    best      the best by the primary metric's overall average
    last      the most recently submitted scored one (submission time, not scoring time:
              re-scoring every run after a new qrels release must not reorder them)
    selected  the best of those the team selected for the final, else its last scored
    """
    if not candidates:
        raise ValueError("a team with no scored submission has no leaderboard row")
    if ranking == "best":
        return min(candidates, key=rank_key)
    if ranking == "last":
        return _latest(candidates)
    if ranking == "selected":
        selected = [c for c in candidates if c.selected_for_final]
        return min(selected, key=rank_key) if selected else _latest(candidates)
    raise ValueError(f"unknown ranking policy {ranking!r}")


def ranked(candidates: list[Candidate]) -> list[Candidate]:
    """Candidates in leaderboard order (rank 1 first)."""
    return sorted(candidates, key=rank_key)
