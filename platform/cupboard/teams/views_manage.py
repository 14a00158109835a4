"""The organizers' teams page (in the organizer area): who is in which team, what each team
submitted per phase, and every team change, so team-hopping is seen, not only prevented."""
from django.contrib.auth.decorators import login_required
from django.shortcuts import render
from django.views.decorators.http import require_GET

from cupboard.competitions.views_manage import _get_competition_for_organizer

from .selectors import teams_overview


@login_required
@require_GET
def manage_teams(request, slug: str):
    """Teams with members and submission counts per phase, and the team-change events; organizers
    and staff only (a 404 to everyone else, like the rest of the organizer area)."""
    competition = _get_competition_for_organizer(request, slug)
    return render(request, "teams/manage.html", {"competition": competition, **teams_overview(competition=competition)})
