"""Team pages: create, join by invite link, leave, the captain's member removal and invite
replacement, and the team page with its submissions. Leaving and removing ask first: the
submissions a member took part in keep counting against the limits of their next team."""
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied, ValidationError
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_http_methods, require_POST

from cupboard.competitions.access import competition_viewer, viewer_or_404
from cupboard.competitions.models import Competition
from cupboard.competitions.viewer import viewer_for
from cupboard.links import absolute
from cupboard.refusals import throttled
from cupboard.throttle import client_network, throttle_count, throttle_wait

from .forms import TeamForm
from .models import Team
from .selectors import team_captain, team_members
from .services import team_create, team_invite_replace, team_join, team_leave, team_member_remove, team_merge


def _get_team(request, competition_slug: str, team_slug: str) -> Team:
    """A team of a competition the viewer may see; a draft's teams are a 404 like its pages."""
    team = get_object_or_404(Team.objects.select_related("competition"),
                             competition__slug=competition_slug, slug=team_slug)
    viewer_or_404(request, team.competition)
    return team


def _entry(competition: Competition) -> dict:
    """When teams stop forming, and whether they already have (the pages say so before any POST)."""
    closes_at = competition.entry_closes_at()
    return {"entry_closes_at": closes_at, "entry_closed": closes_at is not None and timezone.now() >= closes_at}


@login_required
@require_http_methods(["GET", "POST"])
def create(request, competition_slug: str):
    """Create a team in a competition; the creator joins it."""
    viewer = competition_viewer(request, competition_slug)  # a draft: only its organizers know it exists
    competition = viewer.competition
    form = TeamForm(request.POST or None)
    address = client_network(request)
    if request.method == "POST" and (wait := throttle_wait("team-create-address", address)):
        return throttled(request, wait, what="Too many teams were created from this address")
    if request.method == "POST" and form.is_valid():
        try:
            team = team_create(competition=competition, user=request.user, name=form.cleaned_data["name"])
        except ValidationError as error:
            form.add_error("name", error)
        else:
            throttle_count("team-create-address", address)
            messages.success(request, f"Team {team.name} created. Share its invite link with your teammates.")
            return redirect(team)
    return render(request, "teams/create.html", {"competition": competition, "form": form, "current": viewer.team,
                                                 **_entry(competition)})


@login_required
@require_http_methods(["GET", "POST"])
def join(request, invite_code: str):
    """An invite link: GET asks for confirmation, POST joins. A draft's invites are a 404."""
    team = get_object_or_404(Team.objects.select_related("competition"), invite_code=invite_code)
    viewer = viewer_or_404(request, team.competition)
    if request.method == "POST":
        try:
            team_join(invite_code=invite_code, user=request.user)
        except ValidationError as error:
            messages.error(request, error.messages[0])
        else:
            messages.success(request, f"You joined {team.name}.")
            return redirect(team)
    current = viewer.team
    may_merge = current is not None and current != team and team_captain(team=current) == request.user
    return render(request, "teams/join.html", {"team": team, "current": current, "may_merge": may_merge,
                                               **_entry(team.competition)})


@login_required
@require_POST
def merge(request, invite_code: str):
    """The captain of another team merges it into this invite's team (offered on the invite page).
    A draft's invites are a 404, as on the invite page."""
    team = get_object_or_404(Team.objects.select_related("competition"), invite_code=invite_code)
    viewer = viewer_or_404(request, team.competition)
    current = viewer.team
    if current is None:
        messages.error(request, "You are in no team to merge.")
        return redirect("teams:join", invite_code)
    try:
        team_merge(team=current, invite_code=invite_code, actor=request.user)
    except ValidationError as error:
        messages.error(request, error.messages[0])
        return redirect("teams:join", invite_code)
    messages.success(request, f"{current.name} merged into {team.name}.")
    return redirect(team)


@login_required
@require_http_methods(["GET", "POST"])
def leave(request, competition_slug: str, team_slug: str):
    """GET asks for confirmation (saying what the member takes along), POST leaves."""
    team = _get_team(request, competition_slug, team_slug)
    if not viewer_for(request, team.competition).is_member(team):
        messages.error(request, "You are not in this team.")
        return redirect(team)
    if request.method == "GET":
        return render(request, "teams/confirm.html", {"team": team, "member": request.user, "leaving": True,
                                                      "entry_closes_at": team.competition.entry_closes_at()})
    try:
        team_leave(team=team, user=request.user)
    except ValidationError as error:
        messages.error(request, error.messages[0])
        return redirect(team)
    messages.success(request, f"You left {team.name}.")
    return redirect("accounts:profile")


def _get_team_for_captain(request, competition_slug: str, team_slug: str) -> Team:
    team = _get_team(request, competition_slug, team_slug)
    if team_captain(team=team) != request.user:
        raise PermissionDenied("Only the team's captain can do this.")
    return team


@login_required
@require_http_methods(["GET", "POST"])
def member_remove(request, competition_slug: str, team_slug: str, username: str):
    """The captain removes a member: GET asks for confirmation, POST removes (audited)."""
    team = _get_team_for_captain(request, competition_slug, team_slug)
    member = get_object_or_404(User, username=username, memberships__team=team)
    if request.method == "GET":
        return render(request, "teams/confirm.html", {"team": team, "member": member, "leaving": False})
    try:
        team_member_remove(team=team, member=member, actor=request.user)
    except ValidationError as error:
        messages.error(request, error.messages[0])
    else:
        messages.success(request, f"{member.username} is no longer in {team.name}.")
    return redirect(team)


@login_required
@require_POST
def invite_replace(request, competition_slug: str, team_slug: str):
    """The captain replaces the invite link; the old one stops working (audited)."""
    team = _get_team_for_captain(request, competition_slug, team_slug)
    team_invite_replace(team=team, actor=request.user)
    messages.success(request, "New invite link made; the old one no longer works.")
    return redirect(team)


@require_http_methods(["GET"])
def detail(request, competition_slug: str, team_slug: str):
    """The team page: members and submissions for teammates and organizers, the name for others."""
    team = _get_team(request, competition_slug, team_slug)
    viewer = viewer_for(request, team.competition)
    member = viewer.is_member(team)
    insider = member or viewer.is_organizer  # others see the name only
    submissions = team.submissions.select_related("phase").order_by("phase__position", "-number") if insider else None
    members = team_members(team=team) if insider else []
    closes = team.competition.entry_closes_at()
    return render(request, "teams/detail.html", {
        # After the entry deadline nobody can join: no invite link to share (nor to replace).
        "entry_closed_at": closes if closes is not None and viewer.now >= closes else None,
        "team": team, "insider": insider, "submissions": submissions,
        "is_member": member, "captain": members[0] if members else None,  # the earliest member
        "members": members if insider else None,
        "invite_url": absolute(reverse("teams:join", args=[team.invite_code])) if insider else None,
    })
