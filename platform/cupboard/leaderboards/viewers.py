"""Who a signed-in request is, as far as a leaderboard cares, remembered per session.

A board's cached entry is shared by a viewer class (leaderboards/cache.py). Telling a signed-in
request's class takes its session, its user, their team and their roles: queries that cost a
cached hit most of its time. So the class (and the user's id, which the ETag and the page
shell name) is kept in the cache under a hash of the session cookie and the competition's
latest `PageChange` (competitions/page_cache.py), which a saved or deleted team, membership or
organizer or assessor appends: a person who joins, leaves or is named is told anew at once.
A logged-out session is flushed, so its cookie names nothing any more; a user saved (renamed,
deactivated, made staff or not, a new password) appends one to every competition they are in a
team of, organize or judge, and to every one when they are or were staff (a login: none).

Only a request carrying a session cookie and nothing else of its own (no message cookie,
no Authorization header) is remembered: the others are told as before, every time.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass

from django.conf import settings
from django.core.cache import cache

from cupboard.competitions.viewer import Viewer
from cupboard.leaderboards.cache import BoardState, viewer_class


@dataclass(frozen=True)
class Known:
    """A request's user id (None: not signed in) and viewer class."""

    user_pk: int | None
    viewer_class: str


PUBLIC = Known(user_pk=None, viewer_class="public")


def session_hash(request) -> str | None:
    """The hash of the request's session cookie when that is all it carries of its own."""
    cookies = request.COOKIES
    session = cookies.get(settings.SESSION_COOKIE_NAME)
    if not session or "messages" in cookies or "HTTP_AUTHORIZATION" in request.META:
        return None
    return hashlib.sha256(session.encode()).hexdigest()[:32]


def _key(session: str, state: BoardState) -> str:
    return f"board-viewer:{session}:{state.phase_id}:{state.page_change}"


def known_viewer(session: str | None, state: BoardState) -> Known | None:
    """Who the session is, as remembered for this competition's latest change; None when not."""
    return cache.get(_key(session, state)) if session else None


def remember_viewer(session: str | None, state: BoardState, viewer: Viewer) -> Known:
    """Who `viewer` is, remembered for the session (when there is one to remember it by)."""
    user = viewer.user
    known = Known(user_pk=user.pk if user.is_authenticated else None, viewer_class=viewer_class(viewer))
    if session:
        cache.set(_key(session, state), known, settings.CUPBOARD_VIEWER_SECONDS)
    return known
