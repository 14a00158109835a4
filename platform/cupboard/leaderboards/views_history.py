"""A phase's leaderboard over time (the history page) and its frozen official results.

What a viewer sees is decided as for the live leaderboard (selectors.history_for,
snapshots.official_snapshot): nobody but organizers sees a private leaderboard's history
from before its reveal, or a column hidden at the instant of a point."""

from django.http import Http404, HttpResponse
from django.shortcuts import render
from django.utils.http import content_disposition_header
from django.utils.safestring import mark_safe
from django.views.decorators.http import require_GET, require_safe

from cupboard.charts import as_html
from cupboard.competitions.page_cache import anonymous_cached
from cupboard.jsonexport import json_text
from cupboard.leaderboards.cache import cached, viewer_class
from cupboard.leaderboards.charts import history_figures
from cupboard.leaderboards.exports import history_json as history_body
from cupboard.leaderboards.models import FrozenSnapshot
from cupboard.leaderboards.selectors import history_for
from cupboard.leaderboards.snapshots import official_snapshot
from cupboard.leaderboards.views import _board_state, _phase_and_viewer, json_answer
from cupboard.refusals import error_body

# The history page lists the latest changes; its charts show them all.
RECENT_CHANGES = 50


def _get_phase_for_user(request, slug: str, phase_slug: str):
    """The phase and its viewer at one instant, as the leaderboard page reads them; 404 when
    the phase does not exist for them."""
    return _phase_and_viewer(request, _board_state(request, slug, phase_slug))


@anonymous_cached()
@require_GET
def history(request, slug: str, phase_slug: str):
    """Each team's primary value and rank after every change, as charts, and the instants
    of the changes, each a link to the leaderboard as it stood then (?as_of=). Computed once
    per leaderboard version and viewer class (leaderboards/cache.py)."""
    state = _board_state(request, slug, phase_slug)  # read once: the phase, the viewer and the key agree
    phase, viewer = _phase_and_viewer(request, state)

    def build() -> dict:
        found = history_for(phase=phase, viewer=viewer)
        return {"visible": found.visible, "message": found.message, "metric": found.metric,
                "teams": len({p.team for p in found.points}), "instants": len(found.instants),
                "recent": found.changes(latest=RECENT_CHANGES), "decimals": found.decimals,
                "charts": [str(chart) for chart in as_html(history_figures(found))]}
    data = cached(state.key(viewer_class(viewer), what="history"), build)
    return render(request, "leaderboards/history.html", {
        "phase": phase, "competition": phase.competition, **data,
        "charts": [mark_safe(chart) for chart in data["charts"]],  # noqa: S308 - built by as_html
        "snapshot": official_snapshot(phase, viewer)})


@json_answer
@require_safe
def history_json(request, competition_slug: str, phase_slug: str):
    """The history page's data as JSON (leaderboards/exports.py `history_json`), seen as the
    page sees it: 403 with the page's message while the caller may not see the leaderboard.
    Computed once per leaderboard version and viewer class, as the page."""
    state = _board_state(request, competition_slug, phase_slug)
    phase, viewer = _phase_and_viewer(request, state)

    def build() -> tuple[int, str]:
        found = history_for(phase=phase, viewer=viewer)
        if not found.visible:
            return 403, error_body("leaderboard-not-public", found.message)
        body = history_body(found, rounded_to=viewer.rounded_to, frozen_since=viewer.frozen_since(phase))
        return 200, json_text(body)
    status, body = cached(state.key(viewer_class(viewer), what="history-json"), build)
    return HttpResponse(body, status=status, content_type="application/json")


def _official(request, slug: str, phase_slug: str, *, what: str) -> HttpResponse:
    phase, viewer = _get_phase_for_user(request, slug, phase_slug)
    if official_snapshot(phase, viewer) is None:
        raise Http404("No official results of this phase")
    snapshot = FrozenSnapshot.objects.get(phase=phase)
    body, content_type = (snapshot.csv, "text/csv; charset=utf-8") if what == "csv" else \
        (snapshot.json, "application/json")
    response = HttpResponse(body, content_type=content_type)
    response["Content-Disposition"] = content_disposition_header(
        True, f"{slug}-{phase_slug}-official-{snapshot.frozen_at:%Y%m%d}.{what}")
    return response


@require_safe
def official_csv(request, slug: str, phase_slug: str):
    """The frozen official results as CSV, byte for byte as when their SHA-256 was published."""
    return _official(request, slug, phase_slug, what="csv")


@json_answer
@require_safe
def official_json(request, competition_slug: str, phase_slug: str):
    """The frozen official results as JSON, byte for byte as when their SHA-256 was published."""
    return _official(request, competition_slug, phase_slug, what="json")
