"""Team writes: create, join with an invite code, leave.

Errors are `ValidationError`s with a code, raised before anything is written; the
database constraint `one_team_per_user_per_competition` backs the check against races.
"""
from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils.text import slugify

from cupboard.competitions.models import Competition

from .models import Membership, Team


def _refuse_second_team(*, competition: Competition, user: AbstractBaseUser) -> None:
    current = Membership.objects.filter(competition=competition, user=user).select_related("team").first()
    if current is not None:
        raise ValidationError(f"You are already in team {current.team.name} in this competition; leave it first.",
                              code="already_in_team")


def _membership_add(*, team: Team, user: AbstractBaseUser) -> Membership:
    try:
        # A savepoint, so a lost race leaves the caller's transaction usable.
        with transaction.atomic():
            return Membership.objects.create(competition_id=team.competition_id, team=team, user=user)
    except IntegrityError:
        # Another request added this user to a team between our check and the insert.
        raise ValidationError("You are already in a team in this competition.", code="already_in_team") from None


@transaction.atomic
def team_create(*, competition: Competition, user: AbstractBaseUser, name: str) -> Team:
    """Create a team; its creator becomes its first member."""
    name = " ".join(name.split())
    slug = slugify(name)[:80]
    if not slug:
        raise ValidationError("A team name needs at least one letter or digit.", code="bad_name")
    _refuse_second_team(competition=competition, user=user)
    if Team.objects.filter(competition=competition, slug=slug).exists() or \
            Team.objects.filter(competition=competition, name__iexact=name).exists():
        raise ValidationError(f"The name {name!r} is taken in this competition.", code="name_taken")
    team = Team.objects.create(competition=competition, name=name, slug=slug, created_by=user)
    _membership_add(team=team, user=user)
    return team


@transaction.atomic
def team_join(*, invite_code: str, user: AbstractBaseUser) -> Team:
    """Join the team whose invite code this is (the code is the whole secret of an invite link)."""
    team = Team.objects.select_related("competition").filter(invite_code=invite_code).first()
    if team is None:
        raise ValidationError("This invite link is not valid (it may have been replaced).", code="bad_invite")
    if Membership.objects.filter(team=team, user=user).exists():
        return team
    _refuse_second_team(competition=team.competition, user=user)
    _membership_add(team=team, user=user)
    return team


def team_leave(*, team: Team, user: AbstractBaseUser) -> None:
    """Leave a team. The team and its submissions stay, even when its last member leaves."""
    deleted, _ = Membership.objects.filter(team=team, user=user).delete()
    if not deleted:
        raise ValidationError("You are not in this team.", code="not_member")
