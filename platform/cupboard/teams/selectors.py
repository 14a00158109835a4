"""Team reads: who is in which team, and what a viewer may see of a team."""
from django.contrib.auth.models import AbstractBaseUser

from cupboard.competitions.models import Competition

from .models import Team


def user_team(*, competition: Competition, user: AbstractBaseUser) -> Team | None:
    """The user's team in a competition, if any."""
    if not user.is_authenticated:
        return None
    return Team.objects.filter(competition=competition, memberships__user=user).first()


def is_member(*, team: Team, user: AbstractBaseUser) -> bool:
    return user.is_authenticated and team.memberships.filter(user=user).exists()


def team_members(*, team: Team) -> list:
    """Members, earliest first: the first is the captain (see team_captain)."""
    return [m.user for m in team.memberships.select_related("user").order_by("joined_at", "pk")]


def team_captain(*, team: Team):
    """The member who may remove others and replace the invite link: the earliest still in the
    team (its creator until they leave)."""
    first = team.memberships.select_related("user").order_by("joined_at", "pk").first()
    return first.user if first else None
