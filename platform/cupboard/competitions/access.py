"""How a view reaches a competition, and who may: the one place that answers 404 or 403.

Every view of a competition's pages finds the competition (and phase) here, once, with the
request's Viewer built at the request's instant (`viewer_for`). The rule, the same on every
page of every app:

- a competition a person may not see (an unknown slug; a draft, for all but its organizers)
  is a 404 on every page of it, so nothing confirms that it exists;
- an organizer page of a competition they may see is a 403: the competition is no secret,
  the page is not theirs. It is refused before its phase, team or file is looked up, so the
  answer says nothing of what the page would have shown.

tests/rules/test_permissions_matrix.py holds every URL to this rule.
"""
from __future__ import annotations

from datetime import datetime

from django.core.exceptions import PermissionDenied
from django.http import Http404
from django.shortcuts import get_object_or_404

from cupboard.competitions.models import Competition, Phase
from cupboard.competitions.viewer import Viewer, viewer_for


def competition_viewer(request, slug: str, *, now: datetime | None = None) -> Viewer:
    """The request's Viewer of the competition `slug`; 404 when they may not see it."""
    competition = Competition.objects.filter(slug=slug).first()
    if competition is None:
        raise Http404("No such competition")
    return viewer_or_404(request, competition, now=now)


def phase_viewer(request, slug: str, phase_slug: str, *, now: datetime | None = None) -> tuple[Viewer, Phase]:
    """The Viewer and a phase of a competition they may see; 404 otherwise."""
    viewer = competition_viewer(request, slug, now=now)
    return viewer, _phase(viewer.competition, phase_slug)


def organizer_competition(request, slug: str) -> Competition:
    """A competition for its organizers (and staff): 404 to whoever may not see it, 403 to the rest."""
    viewer = competition_viewer(request, slug)
    organizers_only(viewer)
    return viewer.competition


def organizer_phase(request, slug: str, phase_slug: str) -> Phase:
    """A phase for its competition's organizers: 404 / 403 as `organizer_competition`, then 404
    for a phase that does not exist."""
    return _phase(organizer_competition(request, slug), phase_slug)


def assessor_viewer(request, slug: str) -> Viewer:
    """The Viewer of a competition for one of its assessors (competitions/assessors.py): 404
    to whoever may not see it, 403 to anyone else, organizers included (their pages are the
    organizer area's; an organizer named an assessor judges here like any assessor)."""
    viewer = competition_viewer(request, slug)
    if not viewer.is_assessor:
        raise PermissionDenied("Assessors only.")
    return viewer


def viewer_or_404(request, competition: Competition, *, now: datetime | None = None) -> Viewer:
    """The Viewer of a competition reached through another row (a team, a submission, a
    board): 404 when they may not see it, as if the row did not exist."""
    viewer = viewer_for(request, competition, now)
    if not viewer.sees_competition:
        raise Http404("No such competition")
    return viewer


def organizers_only(viewer: Viewer) -> None:
    """403 unless the viewer organizes the competition (they may see it: `viewer_or_404` said so)."""
    if not viewer.is_organizer:
        raise PermissionDenied("Organizers only.")


def _phase(competition: Competition, phase_slug: str) -> Phase:
    phase = get_object_or_404(Phase, competition=competition, slug=phase_slug)
    phase.competition = competition  # the row already read, not a second query
    return phase
