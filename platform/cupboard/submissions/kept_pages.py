"""A signed-in person's own pages of a competition (a finished submission, "My submissions"),
kept whole for their browser: rendered once per change and served from the cache
(competitions/page_cache.py `kept`), as a board is for its viewer class.

An entry belongs to one browser: its key holds a hash of the session cookie and the CSRF
cookie (the page names its user, and its forms carry a token made from that cookie's
secret), so nobody else's request can reach it, and it is only made from a request carrying
those two and nothing else of its own (no message cookie, no Authorization header). Beside
the competition's page state (its schedule, the next instant anything changes by the clock,
its leaderboard versions and latest page change: a team joined or left, a definition edit,
a new submission), the key holds the `version` of the runs the page shows, read afresh at
each request (every save and update of a submission bumps it, the bulk updates of the
scoring too: models.py): the submission itself, which must be finished (a queued one shows
its place in the queue, which moves with others' runs), or every run of the person's team.
Which team that is, is remembered for the browser and the competition's state, like the
boards' viewer class (leaderboards/viewers.py).

Who the browser's session signs in is its stamp (accounts/signed_in.py), read from the cache,
and every key holds its person token: a session logged out or deleted, a user deactivated or
given a new password, a membership changed (in any process) replaces the token, so the pages
kept before are reached no more and the view answers as it would (a log-in page, a 404).
A session not remembered yet is answered by the view, and nothing is kept for it.
"""
from __future__ import annotations

import hashlib
from functools import wraps

from django.conf import settings
from django.core.cache import cache
from django.db import connection

from cupboard.accounts.signed_in import signed_in
from cupboard.competitions.models import Competition, Phase
from cupboard.competitions.page_cache import kept, page_state
from cupboard.teams.models import Membership

from .models import Submission

FINISHED = (Submission.Status.SCORED, Submission.Status.REJECTED, Submission.Status.FAILED)


def _browser(request) -> str | None:
    """A hash of the session and CSRF cookies of a GET carrying nothing else of its own."""
    cookies = request.COOKIES
    session, csrf = cookies.get(settings.SESSION_COOKIE_NAME), cookies.get(settings.CSRF_COOKIE_NAME)
    if (request.method != "GET" or not session or not csrf or "messages" in cookies
            or "HTTP_AUTHORIZATION" in request.META):
        return None
    return hashlib.sha256(f"{session}:{csrf}".encode()).hexdigest()[:32]


def _key(browser: str, *parts) -> str:
    return "own-page:" + hashlib.sha256(repr((browser, *parts)).encode()).hexdigest()[:40]


def kept_submission(view):
    """A finished submission's page, kept for the browser that opened it."""
    @wraps(view)
    def wrapper(request, pk: int):
        browser = _browser(request)
        if browser is None or request.GET:
            return view(request, pk=pk)
        stamp = signed_in(request)  # first: its token is read before the rows it vouches for
        row = _finished(pk) if stamp is not None and stamp.user_pk is not None else None
        state = page_state(row[1], recent=True) if row else None
        if stamp is None or row is None or state is None:
            return view(request, pk=pk)
        key = _key(browser, state.key(request, ""), pk, row[0], stamp.token)
        return kept(request, key, lambda: view(request, pk=pk), own_csrf=True)
    return wrapper


def kept_mine(view):
    """"My submissions", kept for the browser while its team's runs stay as they are."""
    @wraps(view)
    def wrapper(request, competition_slug: str):
        browser, query = _browser(request), sorted(request.GET.items())
        if browser is None or any(name not in ("phase", "status") for name, _ in query):
            return view(request, competition_slug=competition_slug)
        stamp = signed_in(request)  # first: its token is read before the rows it vouches for
        state = page_state(competition_slug, recent=True) if stamp is not None and stamp.user_pk is not None else None
        team = (_team(request, browser, stamp.token, competition_slug, state.fingerprint)
                if stamp is not None and state is not None and state.published else None)
        if stamp is None or state is None or team is None:  # a draft, or not signed in (the view sends them to log in)
            return view(request, competition_slug=competition_slug)
        key = _key(browser, state.key(request, repr(query)), team, _versions(team) if team else [], stamp.token)
        return kept(request, key, lambda: view(request, competition_slug=competition_slug), own_csrf=True)
    return wrapper


def _finished(pk: int) -> tuple[int, str] | None:
    """The version of submission `pk` and its competition's slug, when it is finished (one
    plain query: the ORM's would cost a kept hit more than the rest of it)."""
    submission, phase, competition = (m._meta.db_table for m in (Submission, Phase, Competition))
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT s.status, s.version, c.slug FROM {submission} s "
                       f"JOIN {phase} p ON p.id = s.phase_id JOIN {competition} c ON c.id = p.competition_id "
                       f"WHERE s.id = %s", [pk])
        row = cursor.fetchone()
    return (row[1], row[2]) if row is not None and row[0] in FINISHED else None


def _versions(team: int) -> list[tuple[int, int]]:
    """(id, version) of every run of `team`, in one plain query."""
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT id, version FROM {Submission._meta.db_table} WHERE team_id = %s ORDER BY id", [team])
        return [tuple(row) for row in cursor.fetchall()]


def _team(request, browser: str, token: str, slug: str, fingerprint: str) -> int | None:
    """The id of the browser's team in competition `slug` (0: none), remembered for the
    person's token and the competition's state (a membership saved or deleted changes both);
    None when not signed in."""
    key = f"own-team:{browser}:{token}:{fingerprint}"
    team = cache.get(key)
    if team is None:
        if not request.user.is_authenticated:
            return None
        team = Membership.objects.filter(user=request.user, competition__slug=slug).values_list(
            "team_id", flat=True).first() or 0
        cache.set(key, team, settings.CUPBOARD_VIEWER_SECONDS)
    return team
