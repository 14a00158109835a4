"""Leaderboard pages and exports. Each view asks `leaderboard_for` what the viewer may
see and renders exactly that; no view reads scores itself. What a viewer class sees is
rendered once per leaderboard version and served from the cache (leaderboards/cache.py)."""
import json
from collections.abc import Callable
from types import SimpleNamespace

from django.conf import settings
from django.core.serializers.json import DjangoJSONEncoder
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.template.loader import render_to_string
from django.utils.cache import get_conditional_response, patch_cache_control, patch_vary_headers
from django.utils.http import http_date
from django.utils.safestring import mark_safe
from django.views.decorators.http import require_GET

from cupboard.competitions.models import Competition, Phase
from cupboard.competitions.viewer import Viewer, viewer_for
from cupboard.leaderboards.cache import NONCE_PLACEHOLDER, BoardKey, board_key, cached
from cupboard.leaderboards.charts import leaderboard_charts
from cupboard.leaderboards.exports import leaderboard_csv, leaderboard_json
from cupboard.leaderboards.selectors import Leaderboard, leaderboard_for, phase_boards


def _get_phase_for_user(request, slug: str, phase_slug: str) -> tuple[Phase, Viewer]:
    """The phase and its viewer; 404 when the phase does not exist for them."""
    phase = get_object_or_404(Phase.objects.select_related("competition"), competition__slug=slug, slug=phase_slug)
    viewer = viewer_for(request, phase.competition)
    if not viewer.sees_competition:
        raise Http404("No such leaderboard")
    return phase, viewer


def _conditional(request, key: BoardKey, respond: Callable[[], HttpResponse]) -> HttpResponse:
    """`respond()`, or 304 when the client holds this version; with ETag, Last-Modified and
    `Vary: Cookie` (the viewer class comes from the session), revalidated on every use."""
    last_modified = int(key.last_modified.timestamp()) if key.last_modified else None
    etag = key.etag(request.user)
    response = get_conditional_response(request, etag=etag, last_modified=last_modified) or respond()
    response["ETag"] = etag
    if last_modified is not None:
        response["Last-Modified"] = http_date(last_modified)
    patch_cache_control(response, no_cache=True, private=request.user.is_authenticated)
    patch_vary_headers(response, ["Cookie"])
    return response


def _metric(request, competition: Competition) -> str:
    metrics = list(competition.metrics) or [competition.primary_metric]
    metric = request.GET.get("metric")
    return metric if metric in metrics else competition.primary_metric


def _board_html(phase: Phase, viewer: Viewer, metric: str) -> str:
    leaderboard = leaderboard_for(phase=phase, viewer=viewer)
    return render_to_string("leaderboards/_board.html", {
        "leaderboard": leaderboard, "metric": metric, "table": leaderboard.table(metric),
        "charts": leaderboard_charts(leaderboard, metric=metric) if leaderboard.visible else [],
        "request": SimpleNamespace(csp_nonce=NONCE_PLACEHOLDER)})


def _with_nonce(request, html: str) -> str:
    return html.replace(NONCE_PLACEHOLDER, request.csp_nonce)


def _is_blank(request) -> bool:
    """No session and no message cookie: the page shell carries nothing of anyone."""
    return settings.SESSION_COOKIE_NAME not in request.COOKIES and "messages" not in request.COOKIES


@require_GET
def phase(request, slug: str, phase_slug: str):
    """One phase's leaderboard for one metric (?metric=, default the primary one), with
    charts and export links. The board is rendered once per version and viewer class
    (leaderboards/cache.py); a visitor without cookies gets the whole page from the cache.
    Read-only: a leaderboard computed before a reveal is rebuilt by the beat task."""
    phase, viewer = _get_phase_for_user(request, slug, phase_slug)
    metric = _metric(request, phase.competition)
    board = board_key(phase, viewer, what="board", metric=metric)

    def page() -> str:
        html = mark_safe(_with_nonce(request, cached(board, lambda: _board_html(phase, viewer, metric))))
        return render_to_string("leaderboards/phase.html", {"phase": phase, "board": html}, request=request)

    def respond() -> HttpResponse:
        if not _is_blank(request):
            return HttpResponse(page())
        whole = board.variant("blank-page")
        request.csp_nonce, nonce = NONCE_PLACEHOLDER, request.csp_nonce
        html = cached(whole, page)
        request.csp_nonce = nonce
        return HttpResponse(_with_nonce(request, html))
    return _conditional(request, board, respond)


def _export(request, slug: str, phase_slug: str, *, what: str, build: Callable) -> HttpResponse:
    phase, viewer = _get_phase_for_user(request, slug, phase_slug)
    key = board_key(phase, viewer, what=what)

    def respond() -> HttpResponse:
        status, content_type, body = cached(key, lambda: build(leaderboard_for(phase=phase, viewer=viewer)))
        response = HttpResponse(body, status=status, content_type=content_type)
        if status == 200 and what == "csv":
            response["Content-Disposition"] = f'attachment; filename="{slug}-{phase_slug}-leaderboard.csv"'
        return response
    return _conditional(request, key, respond)


def _csv(leaderboard: Leaderboard) -> tuple[int, str, str]:
    if not leaderboard.visible:
        return 403, "text/plain; charset=utf-8", leaderboard.message
    return 200, "text/csv; charset=utf-8", leaderboard_csv(leaderboard)


def _json(leaderboard: Leaderboard) -> tuple[int, str, str]:
    if not leaderboard.visible:
        body = {"error": {"code": "leaderboard-not-public", "message": leaderboard.message}}
        return 403, "application/json", json.dumps(body, ensure_ascii=False)
    return 200, "application/json", json.dumps(leaderboard_json(leaderboard), ensure_ascii=False,
                                               cls=DjangoJSONEncoder)


@require_GET
def export_csv(request, slug: str, phase_slug: str):
    """The leaderboard as CSV: every metric, the columns the viewer may see, rounded."""
    return _export(request, slug, phase_slug, what="csv", build=_csv)


@require_GET
def export_json(request, slug: str, phase_slug: str):
    """The leaderboard as JSON: full precision for organizers, rounded for everyone else."""
    return _export(request, slug, phase_slug, what="json", build=_json)


@require_GET
def competition(request, slug: str):
    """Every phase of a competition with a link to its leaderboard (or why it is closed)."""
    competition = get_object_or_404(Competition, slug=slug)
    boards = phase_boards(viewer_for(request, competition))
    if boards is None:
        raise Http404("No such competition")
    return render(request, "leaderboards/competition.html", {"competition": competition, "boards": boards})

