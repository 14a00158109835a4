"""Team writes: create, join with an invite code, merge, leave, remove a member, replace the invite.

Errors are `ValidationError`s with a code, raised before anything is written; the
database constraint `one_team_per_user_per_competition` backs the check against races.
Every change is an audit event for the competition's organizers (their teams page lists
them), because moving between teams is how a team would try to get around its limits.
Joins lock the team row, as uploads do, so the members a submission records are exact.
"""
from datetime import datetime

from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.text import slugify

from cupboard import events
from cupboard.accounts.lookalikes import name_key
from cupboard.audit.details import named
from cupboard.audit.models import AuditEvent
from cupboard.audit.services import audit_record
from cupboard.bidi import isolate
from cupboard.competitions.models import Competition
from cupboard.competitions.roles import lock_roles, refuse_role_holder
from cupboard.competitions.viewer import Viewer
from cupboard.locking import locked

from .events import TeamJoining, TeamMerging, UsageCarried
from .models import Membership, Team, new_invite_code
from .selectors import team_captain


def _refuse_second_team(*, competition: Competition, user: AbstractBaseUser) -> None:
    current = Membership.objects.filter(competition=competition, user=user).select_related("team").first()
    if current is not None:
        raise ValidationError(f"You are already in team {current.team.name} in this competition; leave it first.",
                              code="already_in_team")


def _refuse_after_entry_deadline(*, competition: Competition, now: datetime) -> None:
    closes_at = competition.entry_closes_at()
    if closes_at is not None and now >= closes_at:
        raise ValidationError(f"Teams could be formed until {closes_at:%Y-%m-%d %H:%M} UTC (the entry deadline); "
                              "no team can be created or joined any more.", code="entry_closed")


def _membership_add(*, team: Team, user: AbstractBaseUser) -> Membership:
    try:
        # A savepoint, so a lost race leaves the caller's transaction usable.
        with transaction.atomic():
            return Membership.objects.create(competition_id=team.competition_id, team=team, user=user)
    except IntegrityError:
        # Another request added this user to a team between our check and the insert.
        raise ValidationError("You are already in a team in this competition.", code="already_in_team") from None


def _record(*, team: Team, actor: AbstractBaseUser, action: str, summary: str, **details) -> None:
    audit_record(competition=team.competition, actor=actor, action=action, summary=summary,
                 details={**named("team", team.pk, team.name), **details})


def _free_slug(competition: Competition) -> str:
    number = Team.objects.filter(competition=competition).count() + 1
    while Team.objects.filter(competition=competition, slug=f"team-{number}").exists():
        number += 1
    return f"team-{number}"


@transaction.atomic
def team_create(*, competition: Competition, user: AbstractBaseUser, name: str, now: datetime | None = None) -> Team:
    """Create a team; its creator becomes its first member and its captain. Names that look
    alike (Unicode look-alikes, case, spacing) count as the same name."""
    now = now or timezone.now()
    name = " ".join(name.split())
    if not any(ch.isalnum() for ch in name):
        raise ValidationError("A team name needs at least one letter or digit.", code="bad_name")
    # URLs take ASCII slugs: a name in another script (Arabic, Persian) gets "team-<n>".
    slug = slugify(name)[:80] or _free_slug(competition)
    _refuse_after_entry_deadline(competition=competition, now=now)
    lock_roles(competition.pk)  # an assessor or organizer named at this moment waits (competitions/roles.py)
    refuse_role_holder(competition=competition, user=user)
    _refuse_second_team(competition=competition, user=user)
    key = name_key(name)
    if Team.objects.filter(competition=competition, slug=slug).exists() or \
            Team.objects.filter(competition=competition, name_key=key).exists():
        raise ValidationError(f"The name {name!r} is taken in this competition (or one that looks like it).",
                              code="name_taken")
    try:
        with transaction.atomic():
            team = Team.objects.create(competition=competition, name=name, name_key=key, slug=slug, created_by=user)
    except IntegrityError:
        raise ValidationError(f"The name {name!r} was just taken in this competition.", code="name_taken") from None
    _membership_add(team=team, user=user)
    _record(team=team, actor=user, action=AuditEvent.Action.TEAM_CREATED,
            summary=f"{isolate(user.username)} created team {isolate(team.name)}", user=user.username)
    return team


def _refuse_too_many(*, team: Team, newcomers: int) -> None:
    size_max = team.competition.team_size_max
    if team.memberships.count() + newcomers > size_max:
        raise ValidationError(f"{team.name} would be too large: a team has at most {size_max} members here.",
                              code="team_full")


@transaction.atomic
def team_join(*, invite_code: str, user: AbstractBaseUser, now: datetime | None = None) -> Team:
    """Join the team whose invite code this is (the code is the whole secret of an invite link).
    Refused after the entry deadline, when the team is full, or when what the newcomer used in
    earlier teams would take the team past a limit."""
    now = now or timezone.now()
    team = Team.objects.select_related("competition").filter(invite_code=invite_code).first()
    if team is None or not Viewer(user, team.competition).sees_competition:  # a draft's invite: unknown
        raise ValidationError("This invite link is not valid (it may have been replaced).", code="bad_invite")
    if Membership.objects.filter(team=team, user=user).exists():
        return team
    # The competition's roles first (competitions/roles.py), then the team row: uploads lock it
    # too, so no submission is made while members change.
    lock_roles(team.competition_id)
    locked(Team.objects).get(pk=team.pk)
    _refuse_after_entry_deadline(competition=team.competition, now=now)
    refuse_role_holder(competition=team.competition, user=user)
    _refuse_second_team(competition=team.competition, user=user)
    _refuse_too_many(team=team, newcomers=1)
    # What the newcomer used in earlier teams counts here (cupboard/flows/team_changed.py): may refuse.
    events.send(TeamJoining(team=team, user=user, now=now))
    _membership_add(team=team, user=user)
    _record(team=team, actor=user, action=AuditEvent.Action.TEAM_JOINED,
            summary=f"{isolate(user.username)} joined team {isolate(team.name)}", user=user.username)
    return team


def _membership_end(*, team: Team, user: AbstractBaseUser, actor: AbstractBaseUser, action: str,
                    summary: str) -> None:
    locked(Team.objects).get(pk=team.pk)
    carried = events.ask(UsageCarried(team=team, user=user))  # submissions they take along
    deleted, _ = Membership.objects.filter(team=team, user=user).delete()
    if not deleted:
        raise ValidationError(f"{user.username} is not in this team.", code="not_member")
    if carried:
        summary += " (carrying " + ", ".join(f"{n} in {slug}" for slug, n in sorted(carried.items())) + ")"
    _record(team=team, actor=actor, action=action, summary=summary, user=user.username, carried=carried)


@transaction.atomic
def team_leave(*, team: Team, user: AbstractBaseUser) -> None:
    """Leave a team. The team and its submissions stay, even when its last member leaves, and
    the submissions the user took part in keep counting against the user's later teams."""
    if not Membership.objects.filter(team=team, user=user).exists():
        raise ValidationError("You are not in this team.", code="not_member")
    _membership_end(team=team, user=user, actor=user, action=AuditEvent.Action.TEAM_LEFT,
                    summary=f"{isolate(user.username)} left team {isolate(team.name)}")


def _refuse_unless_captain(*, team: Team, actor: AbstractBaseUser) -> None:
    if team_captain(team=team) != actor:
        raise ValidationError("Only the team's captain (its earliest member) can do this.", code="not_captain")


@transaction.atomic
def team_member_remove(*, team: Team, member: AbstractBaseUser, actor: AbstractBaseUser) -> None:
    """The captain removes another member (who keeps carrying the usage, as when leaving)."""
    _refuse_unless_captain(team=team, actor=actor)
    if member == actor:
        raise ValidationError("The captain leaves the team instead of removing themself.", code="remove_self")
    _membership_end(team=team, user=member, actor=actor, action=AuditEvent.Action.TEAM_MEMBER_REMOVED,
                    summary=f"{isolate(actor.username)} removed {isolate(member.username)} from team {isolate(team.name)}")


@transaction.atomic
def team_invite_replace(*, team: Team, actor: AbstractBaseUser) -> Team:
    """The captain replaces the invite link: the old one stops working at once."""
    _refuse_unless_captain(team=team, actor=actor)
    team.invite_code = new_invite_code()
    Team.objects.filter(pk=team.pk).update(invite_code=team.invite_code)
    _record(team=team, actor=actor, action=AuditEvent.Action.TEAM_INVITE_REPLACED,
            summary=f"{isolate(actor.username)} replaced the invite link of team {isolate(team.name)}")
    return team


@transaction.atomic
def team_merge(*, team: Team, invite_code: str, actor: AbstractBaseUser, now: datetime | None = None) -> Team:
    """Merge `team` into the team whose invite code this is: asked by `team`'s captain, agreed to
    by the other team through its invite link. Members and submissions move (the merged members
    join now, so the target's captain stays captain). Refused after the entry (merger) deadline,
    past the size limit, or when the merged team's usage would pass a limit (Kaggle's rule)."""
    now = now or timezone.now()
    target = Team.objects.select_related("competition").filter(invite_code=invite_code).first()
    if target is None:
        raise ValidationError("This invite link is not valid (it may have been replaced).", code="bad_invite")
    if target.pk == team.pk or target.competition_id != team.competition_id:
        raise ValidationError("A team merges into another team of the same competition.", code="bad_merge")
    for pk in sorted([team.pk, target.pk]):  # rows of one kind: one at a time, by primary key
        locked(Team.objects).get(pk=pk)
    _refuse_unless_captain(team=team, actor=actor)
    _refuse_after_entry_deadline(competition=target.competition, now=now)
    moving = list(team.memberships.select_related("user"))
    _refuse_too_many(team=target, newcomers=len(moving))
    # The merged usage may refuse; the submissions move, their leaderboards after commit
    # (cupboard/flows/team_changed.py).
    events.send(TeamMerging(source=team, target=target, now=now))
    Membership.objects.filter(team=team).update(team=target, joined_at=now)
    _record(team=target, actor=actor, action=AuditEvent.Action.TEAM_MERGED,
            summary=f"{isolate(actor.username)} merged team {isolate(team.name)} ({', '.join(isolate(m.user.username) for m in moving)}) "
                    f"into team {isolate(target.name)}", merged_team=team.pk, merged_team_name=team.name,
            users=[m.user.username for m in moving])
    return target
