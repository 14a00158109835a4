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
"""
from __future__ import annotations

import hashlib
from functools import wraps

from django.conf import settings
from django.core.cache import cache
from django.db.models import F

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
        row = Submission.objects.filter(pk=pk).values_list("status", "version", F("phase__competition__slug")).first()
        state = page_state(row[2], recent=True) if row and row[0] in FINISHED else None
        if row is None or state is None:
            return view(request, pk=pk)
        key = _key(browser, state.key(request, ""), pk, row[1])
        return kept(request, key, lambda: view(request, pk=pk), own_csrf=True)
    return wrapper


def kept_mine(view):
    """"My submissions", kept for the browser while its team's runs stay as they are."""
    @wraps(view)
    def wrapper(request, competition_slug: str):
        browser, query = _browser(request), sorted(request.GET.items())
        if browser is None or any(name not in ("phase", "status") for name, _ in query):
            return view(request, competition_slug=competition_slug)
        state = page_state(competition_slug, recent=True)
        team = _team(request, browser, competition_slug, state.fingerprint) if state and state.published else None
        if state is None or team is None:  # a draft, or not signed in (the view sends them to log in)
            return view(request, competition_slug=competition_slug)
        runs = list(Submission.objects.filter(team_id=team).order_by("pk").values_list("pk", "version")) if team else []
        key = _key(browser, state.key(request, repr(query)), team, runs)
        return kept(request, key, lambda: view(request, competition_slug=competition_slug), own_csrf=True)
    return wrapper


def _team(request, browser: str, slug: str, fingerprint: str) -> int | None:
    """The id of the browser's team in competition `slug` (0: none), remembered for the
    competition's state (a membership saved or deleted changes it); None when not signed in."""
    key = f"own-team:{browser}:{fingerprint}"
    team = cache.get(key)
    if team is None:
        if not request.user.is_authenticated:
            return None
        team = Membership.objects.filter(user=request.user, competition__slug=slug).values_list(
            "team_id", flat=True).first() or 0
        cache.set(key, team, settings.CUPBOARD_VIEWER_SECONDS)
    return team
