"""Leaderboard pages and exports. Each view asks `leaderboard_for` what the viewer may
see and renders exactly that; no view reads scores itself. What a viewer class sees is
rendered once per leaderboard version and served from the cache (leaderboards/cache.py)."""
import functools
import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime, time
from datetime import timezone as dt_timezone

from django.conf import settings
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.template.loader import render_to_string
from django.utils.cache import get_conditional_response, patch_cache_control, patch_vary_headers
from django.utils.dateparse import parse_date, parse_datetime
from django.utils.http import http_date
from django.utils.safestring import mark_safe
from django.utils.timezone import is_aware, make_aware
from django.views.decorators.http import require_GET, require_safe

from cupboard.accounts.signed_in import Stamp, session_hash, signed_in
from cupboard.competitions.access import viewer_or_404
from cupboard.competitions.models import Competition, Phase
from cupboard.competitions.page_cache import anonymous_cached
from cupboard.competitions.viewer import Viewer, viewer_for
from cupboard.jsonexport import json_text
from cupboard.leaderboards.cache import BoardKey, BoardState, Rendered, board_state, cached, cached_response
from cupboard.leaderboards.charts import leaderboard_charts
from cupboard.leaderboards.exports import leaderboard_csv, leaderboard_json
from cupboard.leaderboards.past import as_of_wait, past
from cupboard.leaderboards.selectors import Leaderboard, leaderboard_for, phase_boards
from cupboard.leaderboards.snapshots import official_snapshot
from cupboard.leaderboards.table import table_body
from cupboard.leaderboards.viewers import PUBLIC, Known, known_viewer, remember_viewer
from cupboard.refusals import api_error, error_body, refused, throttled
from cupboard.submissions.api import token_or_session

_GZIP = re.compile(r"\bgzip\b")  # as Django's GZipMiddleware reads Accept-Encoding


def _board_state(request, slug: str, phase_slug: str, *, recent: bool | None = None) -> BoardState:
    """The board state; with `recent` (by default, for a visitor without cookies), as this
    process read it within the last CUPBOARD_BOARD_STATE_SECONDS (leaderboards/cache.py)."""
    recent = _is_blank(request) if recent is None else recent
    state = board_state(slug=slug, phase_slug=phase_slug, recent=recent)
    if state is None:
        raise Http404("No such leaderboard")
    return state


def _phase_and_viewer(request, state: BoardState) -> tuple[Phase, Viewer]:
    """The phase and its viewer at the instant the state was read (so both agree on what is
    revealed); 404 when the phase does not exist for them."""
    phase = Phase.objects.select_related("competition").get(pk=state.phase_id)
    return phase, viewer_or_404(request, phase.competition, now=state.now)


def _is_blank(request) -> bool:
    """No session and no message cookie: the page shell carries nothing of anyone, and the
    visitor is of the public class (leaderboards/cache.py)."""
    return (settings.SESSION_COOKIE_NAME not in request.COOKIES and "messages" not in request.COOKIES
            and not request.user.is_authenticated)


@dataclass(frozen=True)
class Found:
    """What a request of a board needs (`_lookup`)."""

    state: BoardState
    key: BoardKey  # the cache key of what the request is answered with
    load: Callable[[], tuple[Phase, Viewer]]  # the phase and viewer, read only when called (a miss)
    who: Known
    stamp: Stamp | None  # the session's (accounts/signed_in.py); None: nothing is remembered for the request
    metric: str
    filters: dict[str, str]  # the run-metadata filter


def _lookup(request, slug: str, phase_slug: str, *, what: str, metric: str | None = None) -> Found:
    """The state, cache key (for `what`, the requested `metric` when it is a board, and the
    run-metadata filter) and viewer of a request. A visitor without cookies, and a session
    whose stamp and viewer class are remembered (leaderboards/viewers.py), are answered with the
    state this process read within CUPBOARD_BOARD_STATE_SECONDS, as visitors are: who a
    signed-in person is, and so what they may see, is checked at every request by their stamp,
    not by the state. The session, the phase and the viewer are read only on a miss. An
    organizer's state is read afresh: their own edits show on their next page, whichever
    process answers it; other requests (an API token, a message to show) read it afresh too."""
    blank = _is_blank(request)
    stamp = None if blank else signed_in(request)  # first: its token is read before the rows it vouches for
    found = _who(request, _board_state(request, slug, phase_slug, recent=blank or stamp is not None), stamp,
                 what=what, metric=metric)
    if stamp is not None and found.who.viewer_class == "organizer":
        fresh = _board_state(request, slug, phase_slug, recent=False)
        if replace(fresh, now=found.state.now) != found.state:
            found = _who(request, fresh, stamp, what=what, metric=metric)
    return found


def _who(request, state: BoardState, stamp: Stamp | None, *, what: str, metric: str | None) -> Found:
    chosen, filters = state.metric(metric) if what == "board" else "", state.filters(request.GET)
    if _is_blank(request):
        if not state.is_published:
            raise Http404("No such leaderboard")
        return Found(state, state.filtered_key("public", what=what, metric=chosen, filters=filters),
                     functools.cache(lambda: _phase_and_viewer(request, state)), PUBLIC, None, chosen, filters)
    session = session_hash(request)
    who = known_viewer(session, stamp, state)
    if who is not None:
        return Found(state, state.filtered_key(who.viewer_class, what=what, metric=chosen, filters=filters),
                     functools.cache(lambda: _phase_and_viewer(request, state)), who, stamp, chosen, filters)
    phase, viewer = _phase_and_viewer(request, state)
    who = remember_viewer(session, stamp, state, viewer)
    return Found(state, state.filtered_key(who.viewer_class, what=what, metric=chosen, filters=filters),
                 lambda: (phase, viewer), who, stamp, chosen, filters)


def _conditional(request, key: BoardKey, who: Known, respond: Callable[[], HttpResponse], *,
                 compressed: bool = False) -> HttpResponse:
    """`respond()`, or 304 when the client holds this version; with ETag, Last-Modified and
    `Vary: Cookie` (the viewer class comes from the session), revalidated on every use."""
    last_modified = int(key.last_modified.timestamp()) if key.last_modified else None
    etag = key.etag(who.user_pk, "gzip" if compressed else "")
    response = get_conditional_response(request, etag=etag, last_modified=last_modified) or respond()
    response["ETag"] = etag
    if last_modified is not None:
        response["Last-Modified"] = http_date(last_modified)
    # A logged-in viewer's answer is theirs (private); a visitor's is everyone's, so no
    # directive (patch_cache_control writes `private=False` for a False value, which no
    # cache understands).
    patch_cache_control(response, no_cache=True, **({"private": True} if who.user_pk is not None else {}))
    patch_vary_headers(response, ["Cookie", "Authorization", "Accept-Encoding"])
    return response


def _served(rendered: Rendered, *, compressed: bool) -> HttpResponse:
    status, content_type, body = rendered
    response = HttpResponse(body, status=status, content_type=content_type)
    if compressed:
        response["Content-Encoding"] = "gzip"
    return response


class BadInstant(ValueError):
    """?as_of= that is not an instant."""


def as_of_param(request) -> datetime | None:
    """?as_of= as an aware instant (ISO 8601 date or date and time; UTC when no offset is
    given), None when absent. Raises BadInstant naming the parameter and the value."""
    raw = request.GET.get("as_of", "").strip()
    if not raw:
        return None
    try:
        # A "+" left unencoded in a query string arrives as a space: "...T10:00 00:00".
        text = re.sub(r" (\d\d:?\d\d)$", r"+\1", raw).replace("Z", "+00:00").replace(" ", "T", 1)
        instant = parse_datetime(text)
        if instant is None and parse_date(raw) is not None:
            instant = datetime.combine(parse_date(raw), time.min)
        # In UTC, as it is compared and stored: an offset past year 1 or 9999 overflows here.
        instant = instant and (instant if is_aware(instant) else make_aware(instant, dt_timezone.utc)).astimezone(
            dt_timezone.utc)
    except (ValueError, OverflowError):
        instant = None
    if instant is None:
        raise BadInstant(f"as_of: {raw[:60]!r} is not an ISO 8601 date or instant in years 1 to 9999 "
                         "(e.g. 2026-11-20 or 2026-11-20T10:00Z)")
    return instant


def _as_of(request, *, as_json: bool = False) -> tuple[datetime | None, HttpResponse | None]:
    """The request's ?as_of= instant, or the response refusing it (cupboard/refusals.py: the
    site's error page, or the API's error shape for an export): a 400 naming a bad value, a
    429 when this client asked for too many past boards (leaderboards/past.py)."""
    try:
        as_of = as_of_param(request)
    except BadInstant as error:
        return None, refused(request, status=400, code="bad-as-of", message=str(error), as_json=as_json)
    if as_of is not None and (wait := as_of_wait(request)):
        return None, throttled(request, wait, what="Too many past leaderboards were asked for from this address",
                               as_json=as_json)
    return as_of, None


def _board_parts(phase: Phase, viewer: Viewer, metric: str, filters: dict[str, str],
                 as_of: datetime | None = None) -> tuple[Leaderboard, str, list[str]]:
    """The board's leaderboard, table body and charts: what is costly to make, and names no instant."""
    leaderboard = leaderboard_for(phase=phase, viewer=viewer, as_of=as_of, filters=filters, metrics=[metric])
    show_bands = leaderboard.bands is not None and metric == leaderboard.primary_metric
    return (leaderboard, table_body(leaderboard, metric, show_bands=show_bands),
            leaderboard_charts(leaderboard, metric=metric) if leaderboard.visible else [])


def _board_html(leaderboard: Leaderboard, body: str, charts: list[str], metric: str) -> str:
    show_bands = leaderboard.bands is not None and metric == leaderboard.primary_metric
    return render_to_string("leaderboards/_board.html", {
        "leaderboard": leaderboard, "metric": metric, "show_bands": show_bands, "body": body, "charts": charts})


def _accepts_gzip(request) -> bool:
    # META, not request.headers: that builds a mapping of every header on first use, in a
    # cached hit that otherwise reads none.
    return bool(_GZIP.search(request.META.get("HTTP_ACCEPT_ENCODING", "")))


@require_GET
def phase(request, slug: str, phase_slug: str):
    """One phase's leaderboard for one metric (?metric=, default the primary one), with
    charts and export links; `?meta_<name>=value` keeps the rows whose run says so. The board
    is rendered once per version, viewer class and filter (leaderboards/cache.py); a visitor without cookies gets the whole page from the cache,
    byte for byte (gzip-compressed when accepted): a cache read, and one query a second per
    web process (CUPBOARD_BOARD_STATE_SECONDS); a remembered participant's too, from cache
    reads (their stamp, viewer class and page: `_lookup`).
    Read-only: a leaderboard computed before a reveal is rebuilt by the beat task."""
    found = _lookup(request, slug, phase_slug, what="board", metric=request.GET.get("metric"))  # 404s first: a bad as_of tells nothing
    board, load, who, metric, filters = found.key, found.load, found.who, found.metric, found.filters
    as_of, refusal = _as_of(request)
    if refusal:
        return refusal
    if as_of is not None:  # a past instant: its snapshot's parts, around the instant asked for
        phase, viewer = load()
        leaderboard, body, charts = past(board, phase, viewer, as_of,
                                         lambda at: _board_parts(phase, viewer, metric, filters, at))
        html = mark_safe(_board_html(leaderboard, body, charts, metric))  # noqa: S308 - our own render
        return render(request, "leaderboards/phase.html",
                      {"phase": phase, "board": html, "snapshot": official_snapshot(phase, viewer)})

    def page() -> str:
        phase, viewer = load()
        html = mark_safe(cached(board, lambda: _board_html(*_board_parts(phase, viewer, metric, filters), metric)))  # noqa: S308 - our own render
        return render_to_string("leaderboards/phase.html",
                                {"phase": phase, "board": html, "snapshot": official_snapshot(phase, viewer)},
                                request=request)

    compressed = _accepts_gzip(request)
    shell = _shell(request, found.stamp)
    if shell is None:  # the shell holds something of this request only: rendered around the shared board
        return _conditional(request, board, who, lambda: HttpResponse(page()))

    def whole_page() -> HttpResponse:
        rendered = cached_response(board.variant(shell), lambda: (200, "text/html; charset=utf-8", page()),
                                   compressed=compressed)
        return _served(rendered, compressed=compressed)
    return _conditional(request, board, who, whole_page, compressed=compressed)


def _shell(request, stamp: Stamp | None) -> str | None:
    """The name of the page shell a request gets, when it can be kept: `blank-page` for a
    visitor without cookies; for a session whose stamp is remembered, carrying a CSRF cookie,
    one per session, CSRF cookie and person token (the shell names its user, who may be
    renamed, and its log-out form holds a token made from that cookie's secret, valid for as
    long as the browser holds it). None otherwise (a message to show, a CSRF cookie still to
    set, an API token, a session not remembered yet)."""
    if _is_blank(request):
        return "blank-page"
    session, csrf = session_hash(request), request.COOKIES.get(settings.CSRF_COOKIE_NAME)
    if session is None or stamp is None or not csrf:
        return None
    return f"page-of:{session}:{hashlib.sha256(csrf.encode()).hexdigest()[:32]}:{stamp.token}"


def _export(request, slug: str, phase_slug: str, *, what: str, build: Callable) -> HttpResponse:
    found = _lookup(request, slug, phase_slug, what=what)
    key, load, who, filters = found.key, found.load, found.who, found.filters
    as_of, refusal = _as_of(request, as_json=True)  # a CSV cannot carry an error: JSON
    if refusal:
        return refusal
    if as_of is not None:  # a past instant: its snapshot's leaderboard, naming the instant asked for
        phase, viewer = load()
        [leaderboard] = past(key, phase, viewer, as_of,
                             lambda at: (leaderboard_for(phase=phase, viewer=viewer, as_of=at, filters=filters),))
        status, content_type, body = build(leaderboard)
        response = HttpResponse(body, status=status, content_type=content_type)
        # Whose it is comes from the session, which a remembered viewer (viewers.py) does not
        # open, so the session middleware would not always say so: say it here, every time.
        patch_vary_headers(response, ["Cookie", "Authorization"])
        return response
    compressed = _accepts_gzip(request)

    def respond() -> HttpResponse:
        def render_export() -> tuple[int, str, str]:
            phase, viewer = load()
            return build(leaderboard_for(phase=phase, viewer=viewer, filters=filters))
        response = _served(cached_response(key, render_export, compressed=compressed), compressed=compressed)
        if response.status_code == 200 and what == "csv":
            response["Content-Disposition"] = f'attachment; filename="{slug}-{phase_slug}-leaderboard.csv"'
        return response
    return _conditional(request, key, who, respond, compressed=compressed)


def _csv(leaderboard: Leaderboard) -> tuple[int, str, str]:
    if not leaderboard.visible:
        return 403, "application/json", error_body("leaderboard-not-public", leaderboard.message)
    return 200, "text/csv; charset=utf-8", leaderboard_csv(leaderboard)


def _json(leaderboard: Leaderboard) -> tuple[int, str, str]:
    if not leaderboard.visible:
        return 403, "application/json", error_body("leaderboard-not-public", leaderboard.message)
    return 200, "application/json", json_text(leaderboard_json(leaderboard))


@require_safe
def export_csv(request, slug: str, phase_slug: str):
    """The leaderboard as CSV: every metric, the columns the viewer may see, rounded; the
    page's `?meta_<name>=` filter applies."""
    return _export(request, slug, phase_slug, what="csv", build=_csv)


def json_answer(view):
    """A leaderboard's JSON for pages and scripts alike: the caller is the session's, or the
    token's when `Authorization` is sent (submissions/api.py), and a board that is not there
    for them is refused in the API's error shape (404), not with the site's page."""
    @functools.wraps(view)
    def wrapper(request, *args, **kwargs):
        try:
            return view(request, *args, **kwargs)
        except Http404 as error:
            return api_error(404, "not_found", str(error) or "No such leaderboard.")
    return token_or_session(wrapper)


@json_answer
@require_safe
def export_json(request, competition_slug: str, phase_slug: str):
    """The leaderboard as JSON: full precision for organizers, rounded for everyone else; the
    page's `?meta_<name>=` filter applies and is named in it."""
    return _export(request, competition_slug, phase_slug, what="json", build=_json)


@anonymous_cached()
@require_GET
def competition(request, slug: str):
    """Every phase of a competition with a link to its leaderboard (or why it is closed)."""
    competition = get_object_or_404(Competition, slug=slug)
    boards = phase_boards(viewer_for(request, competition))
    if boards is None:
        raise Http404("No such competition")
    return render(request, "leaderboards/competition.html", {"competition": competition, "boards": boards})

