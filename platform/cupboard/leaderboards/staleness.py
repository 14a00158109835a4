"""The stale leaderboard rule, written once: rows computed before a group's reveal (at or
before now) rank on old columns, and only a rebuild mends them. The page says so
(`Leaderboard.stale`), an update rebuilds instead (services.py), and the beat task rebuilds
every such phase (tasks.py, `stale_phase_ids`: the same rule in SQL).
"""
from __future__ import annotations

from datetime import datetime

from django.db.models import Exists, OuterRef, Subquery
from django.utils import timezone

from cupboard.competitions.models import Phase, SubsetGroup

from .models import LeaderboardRow


def rows_are_stale(oldest: datetime | None, subsets, now: datetime) -> bool:
    """Whether rows whose oldest was computed at `oldest` (None: no rows) predate the reveal of a
    group of `subsets` at or before `now`."""
    return oldest is not None and any(oldest < s.group.reveal_at <= now for s in subsets if s.group.reveal_at)


def stale_phase_ids(*, now: datetime | None = None) -> list[int]:
    """Phases whose rows were computed before a group of their competition was revealed
    (at or before `now`): `rows_are_stale` for every phase at once, in one query, so the
    periodic refresh rebuilds them without anyone opening the page."""
    now = now or timezone.now()
    oldest = LeaderboardRow.objects.filter(phase=OuterRef("pk")).order_by("computed_at").values("computed_at")[:1]
    reveals = SubsetGroup.objects.filter(competition=OuterRef("competition"), reveal_at__lte=now,
                                         reveal_at__gt=OuterRef("oldest_row"))
    return list(Phase.objects.annotate(oldest_row=Subquery(oldest)).filter(oldest_row__isnull=False)
                .filter(Exists(reveals)).values_list("pk", flat=True))
