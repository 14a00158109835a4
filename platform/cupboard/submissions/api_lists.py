"""The JSON API's lists, for a client script: the competitions and phases the caller may see,
and the caller's team's submissions to a phase.

Each phase names the addresses a client goes on to (its definition, the team's submissions,
its leaderboards' JSON), built from the contract's routes (evaluator/client/api.py), so a
client follows links rather than assembling them. What is listed is the Viewer's answer:
a draft competition only for its organizers; a leaderboard's visibility and official
results as the leaderboard pages decide them.
"""
from functools import partial

from django.db.models import BooleanField, ExpressionWrapper, Prefetch, Q
from django.http import JsonResponse
from django.views.decorators.http import require_GET

from cupboard.competitions.models import Competition, Phase
from cupboard.competitions.page_cache import anonymous_cached
from cupboard.competitions.viewer import Viewer, viewer_for
from cupboard.links import absolute
from cupboard.refusals import api_error
from evaluator.client import api as contract

from .api import no_phase, phase_seen, token_required
from .models import Submission
from .selectors import RUN_FILES, status_payload


@anonymous_cached("site")
@partial(token_required, optional=True)
@require_GET
def competitions(request):
    """Every competition the caller may see (the newest first), each with its phases in order.
    Three queries, whatever the number of competitions."""
    phases = Phase.objects.annotate(has_official=ExpressionWrapper(
        Q(frozen_snapshot__isnull=False), output_field=BooleanField())).order_by("position")
    listed = Competition.objects.prefetch_related("organizers", Prefetch("phases", queryset=phases)).order_by(
        "-starts_at", "slug")
    viewers = [viewer_for(request, competition) for competition in listed]
    return JsonResponse({"competitions": [_competition(viewer) for viewer in viewers if viewer.sees_competition]})


def _competition(viewer: Viewer) -> dict:
    competition = viewer.competition
    return {"slug": competition.slug, "title": competition.title, "url": absolute(competition.get_absolute_url()),
            "starts_at": competition.starts_at.isoformat(),
            "phases": [_phase(viewer, phase) for phase in competition.phases.all()]}


def _phase(viewer: Viewer, phase: Phase) -> dict:
    """A phase with its window and the addresses of what a client reads of it. `official_url`
    only once its frozen official results are there for the caller (`Viewer.sees_official_results`,
    the rule of leaderboards/snapshots.py)."""
    slugs = {"competition_slug": viewer.competition.slug, "phase_slug": phase.slug}
    board = viewer.sees_leaderboard(phase)
    official = viewer.sees_official_results(phase) and phase.has_official
    return {
        "slug": phase.slug, "name": phase.name, "opens": phase.opens_at.isoformat(),
        "closes": phase.closes_at.isoformat(), "is_open": phase.is_open(viewer.now), "is_final": phase.is_final,
        "reveal_at": phase.reveal_at.isoformat() if phase.reveal_at else None, "leaderboard_visible": board,
        "definition_url": absolute(contract.path_of(contract.DEFINITION_ROUTE, **slugs)),
        "submissions_url": absolute(contract.path_of(contract.SUBMISSIONS_ROUTE, **slugs)),
        "leaderboard_url": absolute(contract.page_path(contract.LEADERBOARD_ROUTE, **slugs)),
        "history_url": absolute(contract.page_path(contract.HISTORY_ROUTE, **slugs)),
        "official_url": absolute(contract.page_path(contract.OFFICIAL_ROUTE, **slugs)) if official else None,
    }


@token_required
@require_GET
def submissions(request, competition_slug: str, phase_slug: str):
    """The caller's team's submissions to a phase, newest first, each as the status answer
    gives it (`status_payload`: the scores the caller may see of it). 403 without a team in
    the competition: a team's runs are its members' only (organizers read them on the site)."""
    found = phase_seen(request, competition_slug, phase_slug)
    if found is None:
        return no_phase(competition_slug, phase_slug)
    phase, viewer = found
    team = viewer.team
    if team is None:
        return api_error(403, "no_team", f"You are in no team of competition {competition_slug!r}: only a "
                                         "team's members see its submissions.")
    runs = (Submission.objects.filter(phase=phase, team=team).select_related("phase__competition", "team", "qrels_release")
            .prefetch_related(RUN_FILES, "scores").order_by("-created_at", "-pk"))
    return JsonResponse({"competition": phase.competition.slug, "phase": phase.slug, "team": team.name,
                         "submissions": [status_payload(viewer, submission) for submission in runs]})
