"""Team reads: members and captain (the organizers' team list counts submissions: it is
submissions/selectors.py teams_overview). Whether a viewer is in a team,
and what they may see of it, is their Viewer's answer (competitions/viewer.py)."""
from .models import Team


def team_members(*, team: Team) -> list:
    """Members, earliest first: the first is the captain (see team_captain)."""
    return [m.user for m in team.memberships.select_related("user").order_by("joined_at", "pk")]


def team_captain(*, team: Team):
    """The member who may remove others and replace the invite link: the earliest still in the
    team (its creator until they leave)."""
    first = team.memberships.select_related("user").order_by("joined_at", "pk").first()
    return first.user if first else None

