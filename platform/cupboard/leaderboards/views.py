"""Leaderboard pages and exports. Each view asks `leaderboard_for` what the viewer may
see and renders exactly that; no view reads scores itself."""
from django.http import Http404, HttpResponse, HttpResponseForbidden, JsonResponse
from django.shortcuts import get_object_or_404, render
from django.views.decorators.http import require_GET

from cupboard.competitions.models import Competition, Phase
from cupboard.competitions.viewer import viewer_for
from cupboard.leaderboards.charts import leaderboard_charts
from cupboard.leaderboards.exports import leaderboard_csv, leaderboard_json
from cupboard.leaderboards.selectors import Leaderboard, leaderboard_for, phase_boards


def _get_leaderboard_for_user(request, slug: str, phase_slug: str) -> Leaderboard:
    """The viewer's leaderboard of a phase; 404 when the phase does not exist for them."""
    phase = get_object_or_404(Phase.objects.select_related("competition"), competition__slug=slug, slug=phase_slug)
    leaderboard = leaderboard_for(phase=phase, viewer=viewer_for(request, phase.competition))
    if not leaderboard.exists:
        raise Http404("No such leaderboard")
    return leaderboard


@require_GET
def phase(request, slug: str, phase_slug: str):
    """One phase's leaderboard for one metric (?metric=, default the primary one), with
    charts and export links. Template: leaderboards/phase.html."""
    # Read-only: a leaderboard computed before a group's reveal is rebuilt by the beat task
    # refresh_stale_leaderboards; this page already ranks by the columns it shows.
    leaderboard = _get_leaderboard_for_user(request, slug, phase_slug)
    metric = request.GET.get("metric")
    if metric not in leaderboard.metrics:
        metric = leaderboard.primary_metric
    return render(request, "leaderboards/phase.html", {
        "leaderboard": leaderboard, "metric": metric, "table": leaderboard.table(metric),
        "charts": leaderboard_charts(leaderboard, metric=metric),
    })


@require_GET
def export_csv(request, slug: str, phase_slug: str):
    """The leaderboard as CSV: every metric, the columns the viewer may see, rounded."""
    leaderboard = _get_leaderboard_for_user(request, slug, phase_slug)
    if not leaderboard.visible:
        return HttpResponseForbidden(leaderboard.message, content_type="text/plain; charset=utf-8")
    response = HttpResponse(leaderboard_csv(leaderboard), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{slug}-{phase_slug}-leaderboard.csv"'
    return response


@require_GET
def export_json(request, slug: str, phase_slug: str):
    """The leaderboard as JSON: full precision for organizers, rounded for everyone else."""
    leaderboard = _get_leaderboard_for_user(request, slug, phase_slug)
    if not leaderboard.visible:
        return JsonResponse({"error": {"code": "leaderboard-not-public", "message": leaderboard.message}},
                            status=403)
    return JsonResponse(leaderboard_json(leaderboard), json_dumps_params={"ensure_ascii": False})


@require_GET
def competition(request, slug: str):
    """Every phase of a competition with a link to its leaderboard (or why it is closed)."""
    competition = get_object_or_404(Competition, slug=slug)
    boards = phase_boards(viewer_for(request, competition))
    if boards is None:
        raise Http404("No such competition")
    return render(request, "leaderboards/competition.html", {"competition": competition, "boards": boards})

