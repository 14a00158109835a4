"""Team reads: members, captain and the organizers' team list. Whether a viewer is in a team,
and what they may see of it, is their Viewer's answer (competitions/viewer.py)."""
from django.db.models import Count, Prefetch, Q

from cupboard.audit.models import AuditEvent
from cupboard.competitions.models import Competition
from cupboard.submissions.models import Submission

from .models import Membership, Team


def team_members(*, team: Team) -> list:
    """Members, earliest first: the first is the captain (see team_captain)."""
    return [m.user for m in team.memberships.select_related("user").order_by("joined_at", "pk")]


def team_captain(*, team: Team):
    """The member who may remove others and replace the invite link: the earliest still in the
    team (its creator until they leave)."""
    first = team.memberships.select_related("user").order_by("joined_at", "pk").first()
    return first.user if first else None


def teams_overview(*, competition: Competition) -> dict:
    """The organizers' teams page: each team with its members (captain first) and its submissions
    per phase (all / counting against the limits), and the competition's team changes, newest first.
    Four queries, whatever the number of teams."""
    phases = list(competition.phases.order_by("position"))
    memberships = Prefetch("memberships", queryset=Membership.objects.select_related("user").order_by("joined_at", "pk"))
    teams = list(Team.objects.filter(competition=competition).prefetch_related(memberships).order_by("name"))
    for team in teams:
        team.competition = competition  # its address names the competition: no query per team
    counts = (Submission.objects.filter(phase__competition=competition, team__isnull=False)
              .values("team_id", "phase_id")
              .annotate(total=Count("pk"), counted=Count("pk", filter=Q(status__in=Submission.COUNTS_TOWARD_LIMIT))))
    by_team: dict[int, dict[int, dict]] = {}
    for row in counts:
        by_team.setdefault(row["team_id"], {})[row["phase_id"]] = row
    rows = [{"team": team, "members": [m.user for m in team.memberships.all()],
             "per_phase": [by_team.get(team.pk, {}).get(phase.pk, {"total": 0, "counted": 0}) for phase in phases]}
            for team in teams]
    events = (AuditEvent.objects.filter(competition=competition, action__in=AuditEvent.TEAM_ACTIONS)
              .select_related("actor")[:500])
    return {"phases": phases, "rows": rows, "events": list(events)}
