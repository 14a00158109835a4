"""What a class of viewers sees of a leaderboard, rendered once and served from Django's cache.

A cached entry is keyed on everything its bytes depend on:

- the phase and its `leaderboard_version` (bumped by every refresh, update and qrels
  release, under the phase lock: leaderboards/services.py), read with the phase itself;
- the next instant at which what anyone sees changes by the clock (a group's or the
  phase's reveal, the phase opening or closing), so an entry made before a reveal is
  never served after it: a reveal is never served late;
- the viewer class, from the `Viewer`: `organizer` (every organizer sees the same),
  `team-<pk>` (a team's members see their own row highlighted and linked), and
  `public` (anonymous and logged-in people without a team see the same). An entry is
  only ever shared inside one class, and nothing of a user (name, CSRF token) goes in:
  the page shell around a cached board is rendered per request (only the anonymous
  shell, which carries nothing of anyone, is cached whole);
- what is rendered (page board, whole anonymous page, JSON, CSV) and the metric.

Entries also expire after CUPBOARD_LEADERBOARD_CACHE_SECONDS, which bounds how long an
edit that bumps no version (a team renamed, a phase edited in the admin) takes to show.
The same key, hashed, is the ETag; a matching If-None-Match is answered 304.
"""
from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from django.conf import settings
from django.core.cache import cache

from cupboard.competitions.models import Phase
from cupboard.competitions.viewer import Viewer

# Stands for the per-request CSP nonce inside a cached page; each response puts its own in.
NONCE_PLACEHOLDER = "cupboard-csp-nonce-placeholder"


def viewer_class(viewer: Viewer) -> str:
    """The class whose members all see the same leaderboard (see the module docstring)."""
    if viewer.is_organizer:
        return "organizer"
    if viewer.team is not None:
        return f"team-{viewer.team.pk}"
    return "public"


def _instants(phase: Phase) -> list[datetime]:
    competition = phase.competition
    groups = [g.reveal_at for g in competition.groups.all() if g.reveal_at is not None]
    return [t for t in (phase.opens_at, phase.closes_at, phase.reveal_at, competition.starts_at, *groups) if t]


@dataclass(frozen=True)
class BoardKey:
    """One cache entry's identity for one request (see the module docstring)."""

    key: str
    last_modified: datetime | None

    def variant(self, what: str) -> BoardKey:
        """Another rendering of the same version for the same class (e.g. the whole page)."""
        return BoardKey(key=f"{self.key}:{what}", last_modified=self.last_modified)

    def etag(self, user) -> str:
        """The key's hash, and the user's for a logged-in one: the page shell around the
        shared board names its user, so one person's copy never validates another's."""
        who = user.pk if user.is_authenticated else ""
        return '"' + hashlib.sha256(f"{self.key}:{who}".encode()).hexdigest()[:32] + '"'


def board_key(phase: Phase, viewer: Viewer, *, what: str, metric: str = "") -> BoardKey:
    """The key of what `viewer` sees of `phase` now, and when that last changed."""
    now = viewer.now
    instants = _instants(phase)
    upcoming = min((t for t in instants if t > now), default=None)
    passed = [t for t in instants if t <= now] + ([phase.leaderboard_changed_at] if phase.leaderboard_changed_at else [])
    parts = [phase.pk, phase.leaderboard_version, int(phase.competition.is_published),
             upcoming.timestamp() if upcoming else "-", viewer_class(viewer), what, metric]
    return BoardKey(key="leaderboard:" + ":".join(str(p) for p in parts), last_modified=max(passed, default=None))


def cached(key: BoardKey, build: Callable[[], object]) -> object:
    """The entry under `key`, built (and stored) on a miss."""
    value = cache.get(key.key)
    if value is None:
        value = build()
        cache.set(key.key, value, settings.CUPBOARD_LEADERBOARD_CACHE_SECONDS)
    return value
