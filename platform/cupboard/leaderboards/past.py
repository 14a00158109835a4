"""The leaderboard as it stood at a past instant (`?as_of=`), from snapshots kept in the cache.

What a viewer sees at an instant depends on the phase's rows then, which change only at its
history's change-sets (leaderboards/history.py), and on what was revealed then, which changes
only at the clock instants a `Viewer` compares with (the competition's start and entry
deadline, the phase's opening, freeze, closing and reveal, each group's reveal). Every instant between
two of those is the same board, so it is built once (folding the history up to it: the part
whose cost grows with a Cup's length) and kept under the latest of those instants at or
before the one asked for: any number of instants cost one build per change. Only the instant
named on the page and in the exports is the request's own (`Leaderboard.as_of`).

A snapshot is kept with the live board's key (leaderboards/cache.py: the phase's version,
the viewer class, what is rendered, the metric, the run-metadata filter), so a re-scoring or
a rename shows in it as on the live board. Building one costs what an uncached page costs,
so each client may ask for CUPBOARD_RATES["as-of-address"] of them (`as_of_wait`).
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from datetime import datetime
from typing import Any

from django.db.models import Max

from cupboard.competitions.models import Phase
from cupboard.competitions.viewer import Viewer
from cupboard.leaderboards.cache import BoardKey, cached
from cupboard.throttle import client_network, throttle_take


def as_of_wait(request) -> int:
    """Seconds this client must wait before another past board (0: go on); counts this one."""
    return throttle_take("as-of-address", client_network(request))


def _clock_instants(phase: Phase, viewer: Viewer) -> list[datetime]:
    competition = phase.competition
    instants = [competition.starts_at, competition.entry_deadline, phase.opens_at, phase.freeze_at, phase.closes_at,
                phase.reveal_at]
    instants += [subset.group.reveal_at for subset in viewer.all_subsets]
    return [t for t in instants if t is not None]


def snapshot_instant(phase: Phase, viewer: Viewer, at: datetime) -> datetime | None:
    """The latest instant at or before `at` (never after the viewer's now) at which the phase's
    rows or what anyone sees of them changed; None before the first."""
    at = min(at, viewer.now)
    changed = phase.leaderboard_history.filter(changed_at__lte=at).aggregate(last=Max("changed_at"))["last"]
    return max([t for t in _clock_instants(phase, viewer) if t <= at] + ([changed] if changed else []), default=None)


def past(key: BoardKey, phase: Phase, viewer: Viewer, at: datetime,
         build: Callable[[datetime], tuple[Any, ...]]) -> tuple[Any, ...]:
    """What `build(instant)` makes of the board at `at` (a Leaderboard first, then anything
    rendered from it that names no instant), from the snapshot of its instant under `key`;
    the Leaderboard names `at` (or the viewer's now, if later) as the instant shown."""
    snapshot = snapshot_instant(phase, viewer, at)
    stamp = snapshot.timestamp() if snapshot else "-"
    leaderboard, *rendered = cached(key.variant(f"as_of={stamp}"), lambda: build(snapshot or at))
    return (replace(leaderboard, as_of=min(at, viewer.now)) if leaderboard.as_of else leaderboard, *rendered)
