"""Who a signed-in request is, as far as a leaderboard cares, remembered per session.

A board's cached entry is shared by a viewer class (leaderboards/cache.py). Telling a signed-in
request's class takes its session, its user, their team and their roles: queries that would
cost a cached hit most of its time. So the class (and the user's id, which the ETag and the
page shell name) is kept in the cache under a hash of the session cookie, the user's person
token (accounts/signed_in.py: a session deleted, the user saved, a membership or a role
changed replaces it, in any process, at once) and the competition's latest `PageChange`
(competitions/page_cache.py: a team or role change seen with the board's state); a key that
names all three never goes stale, so each process copies it (cupboard/local_copies.py), while the
token itself is read from the shared cache on every request.

Only a request whose session accounts/signed_in.py remembers is kept here (a session cookie
and nothing else of its own: no message cookie, no Authorization header): the others are
told as before, every time.
"""
from __future__ import annotations

from typing import NamedTuple

from django.conf import settings

from cupboard import local_copies
from cupboard.accounts.signed_in import Stamp
from cupboard.competitions.viewer import Viewer
from cupboard.leaderboards.cache import BoardState, viewer_class


class Known(NamedTuple):
    """A request's user id (None: not signed in) and viewer class."""

    user_pk: int | None
    viewer_class: str


PUBLIC = Known(user_pk=None, viewer_class="public")


def _key(session: str, stamp: Stamp, state: BoardState) -> str:
    return f"board-viewer:{session}:{stamp.token}:{state.phase_id}:{state.page_change}"


def known_viewer(session: str | None, stamp: Stamp | None, state: BoardState) -> Known | None:
    """Who the session is, as remembered for its stamp and this competition's latest change; None when not."""
    if session is None or stamp is None:
        return None
    known = local_copies.get(_key(session, stamp, state))
    return known if known is not None and known.user_pk == stamp.user_pk else None


def remember_viewer(session: str | None, stamp: Stamp | None, state: BoardState, viewer: Viewer) -> Known:
    """Who `viewer` is, remembered for the session's stamp (when it has one)."""
    user = viewer.user
    known = Known(user_pk=user.pk if user.is_authenticated else None, viewer_class=viewer_class(viewer))
    if session is not None and stamp is not None and known.user_pk == stamp.user_pk:
        local_copies.put(_key(session, stamp, state), known, settings.CUPBOARD_VIEWER_SECONDS)
    return known
