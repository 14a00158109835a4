"""A signed-in person's own pages of a competition (a finished submission, "My submissions"),
kept whole for their browser: rendered once per change and served from the cache
(competitions/page_cache.py `kept`), as a board is for its viewer class.

An entry belongs to one browser: its key holds a hash of the session cookie and the CSRF
cookie (the page names its user, and its forms carry a token made from that cookie's
secret), so nobody else's request can reach it, and it is only made from a request carrying
those two and nothing else of its own (no message cookie, no Authorization header). Beside
the competition's page state (its schedule, the next instant anything changes by the clock,
its leaderboard versions and latest page change: a team joined or left, a definition edit),
the key holds two tokens (accounts/signed_in.py `token`: random values in the shared cache,
deleted at once and at the commit by what changes them, in whichever process), so a repeat
visit reads nothing from the database:

- the session's person token (its stamp, accounts/signed_in.py): a session logged out or
  deleted, a user deactivated or given a new password, a membership changed deletes it, and the
  view answers as it would (a log-in page, a 404);
- the team's runs token (`runs_changed`): every save, delete and bulk write of one of its
  submissions deletes it (`run_saved`, and `runs_written` for bulk updates and creations: a
  worker's claim, the scoring's writes, a run moved to another team, whose old and new team
  both change). The page of a submission
  shows it only when it is finished (a queued one shows its place in the queue, which moves
  with others' runs); which team it belongs to, its competition and that it is finished are
  remembered under its team's token, read twice around it.

Which team the person is in is remembered for the browser, their person token and the
competition's state, like the boards' viewer class (leaderboards/viewers.py); it and the pages,
keyed on what changes them, are copied into each process (cupboard/local_copies.py), the tokens
and a run's team never (a deletion in the shared cache is how they change). A session not
remembered yet is answered by the view, and nothing is kept for it.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import wraps

from django.conf import settings
from django.core.cache import cache
from django.db import connection

from cupboard import local_copies
from cupboard.accounts.signed_in import forget, signed_in, token
from cupboard.bulk_writes import RowsWritten
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
        run = _finished(pk) if stamp is not None and stamp.user_pk is not None else None
        state = page_state(run.slug, recent=True) if run else None
        if stamp is None or run is None or state is None:
            return view(request, pk=pk)
        key = _key(browser, state.key(request, ""), pk, run.token, stamp.token)
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
        runs = _runs_token(team) if team else ""  # read before the view reads the runs
        if stamp is None or state is None or team is None or runs is None:  # a draft, or not signed in
            return view(request, competition_slug=competition_slug)
        key = _key(browser, state.key(request, repr(query)), team, runs, stamp.token)
        return kept(request, key, lambda: view(request, competition_slug=competition_slug), own_csrf=True)
    return wrapper


def _runs_token(team: int) -> str | None:
    return token(f"team-runs:{team}")


def runs_changed(teams) -> None:
    """The runs of `teams` (ids; None ignored) changed: the pages kept for them are reached no more."""
    for team in teams:
        if team is not None:
            forget(f"team-runs:{team}")


def run_saved(sender, instance, raw: bool = False, **_) -> None:
    """post_save and post_delete of a submission: its team's runs changed (a run changes team
    only by an update, which tells both teams: `runs_written`)."""
    if not raw:
        runs_changed([instance.team_id])


def runs_written(event: RowsWritten) -> None:
    """RowsWritten (cupboard/bulk_writes.py) of submissions, quiet ones too: the teams their rows
    were in (read with them before the write: Submission.TOLD_WITH) and the team an update moved
    them to changed; for new rows, their teams."""
    if event.model is Submission:
        runs_changed(event.told("team_id"))


@dataclass(frozen=True)
class _Run:
    team: int
    slug: str
    token: str  # its team's runs token when these were read


def _finished(pk: int) -> _Run | None:
    """Submission `pk`'s team and competition when it is finished, remembered under its team's
    runs token (read between two reads of the row, which must agree: a write committed before the
    second read is seen, one committed after it deletes the token read); None when it is not."""
    key = f"own-run:{pk}"
    run = cache.get(key)
    if run is not None and run.token == _runs_token(run.team):
        return run
    row = _row(pk)
    if row is None or row[0] not in FINISHED or row[3] is None:  # a baseline has no team's token
        return None
    runs = _runs_token(row[3])
    if runs is None or _row(pk) != row:
        return None
    run = _Run(team=row[3], slug=row[2], token=runs)
    cache.set(key, run, settings.CUPBOARD_PAGE_CACHE_SECONDS)
    return run


def _row(pk: int) -> tuple | None:
    """(status, version, competition slug, team id) of submission `pk`, in one plain query."""
    submission, phase, competition = (m._meta.db_table for m in (Submission, Phase, Competition))
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT s.status, s.version, c.slug, s.team_id FROM {submission} s "
                       f"JOIN {phase} p ON p.id = s.phase_id JOIN {competition} c ON c.id = p.competition_id "
                       f"WHERE s.id = %s", [pk])
        return cursor.fetchone()


def _team(request, browser: str, token: str, slug: str, fingerprint: str) -> int | None:
    """The id of the browser's team in competition `slug` (0: none), remembered for the
    person's token and the competition's state (a membership saved or deleted changes both);
    None when not signed in."""
    key = f"own-team:{browser}:{token}:{fingerprint}"
    team = local_copies.get(key)
    if team is None:
        if not request.user.is_authenticated:
            return None
        team = Membership.objects.filter(user=request.user, competition__slug=slug).values_list(
            "team_id", flat=True).first() or 0
        local_copies.put(key, team, settings.CUPBOARD_VIEWER_SECONDS)
    return team
