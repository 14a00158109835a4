"""What happens to a team (cupboard/events.py), sent by services.py in the change's transaction
with the team rows locked, before the members move: a handler may refuse the change (a
ValidationError). What follows each is listed in cupboard/flows/team_changed.py."""
from dataclasses import dataclass
from datetime import datetime

from django.contrib.auth.base_user import AbstractBaseUser

from cupboard.events import Event, Question

from .models import Team


@dataclass(frozen=True)
class TeamJoining(Event):
    team: Team
    user: AbstractBaseUser
    now: datetime


@dataclass(frozen=True)
class TeamMerging(Event):
    source: Team
    target: Team
    now: datetime


@dataclass(frozen=True)
class UsageCarried(Question[dict[str, int]]):
    """{phase slug: submissions} a member leaving `team` takes along, for the audit log."""

    team: Team
    user: AbstractBaseUser
