"""Roles granted at once never make one person both an assessor and a team member of one
competition (PostgreSQL, one connection per thread): naming an assessor and joining or
creating a team lock the competition row first (cupboard/locking.py), so the second to come
sees the first's role and is refused."""
from functools import partial

import pytest
from django.core.exceptions import ValidationError

from cupboard.competitions.assessors import assessor_add
from cupboard.teams.models import Membership
from cupboard.teams.services import team_create, team_join
from tests.factories import make_team, make_user
from tests.personas import build_cast
from tests.races import at_once

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

ROUNDS = 30


def _race(*steps) -> list[str]:
    """Run the steps at once; each outcome is "ok" or the refusal's code (any other error fails the test)."""
    outcomes = []
    for error in at_once(*steps):
        if error is not None and not isinstance(error, ValidationError):
            raise error
        outcomes.append("ok" if error is None else error.code)
    return outcomes


@pytest.mark.parametrize("way", ["join", "create"])
def test_an_assessor_named_while_joining_is_never_both(way):
    cast = build_cast()
    competition = cast.competition
    both = []
    for n in range(ROUNDS):
        user, invite = make_user(f"racer{n}"), make_team(competition, name=f"Hosts {n}").invite_code
        enter = partial(team_join, invite_code=invite, user=user) if way == "join" else \
            partial(team_create, competition=competition, user=user, name=f"Racers {n}")
        outcomes = _race(partial(assessor_add, competition=competition, username=user.username, actor=cast.organizer),
                         enter)
        assessor = competition.assessors.filter(pk=user.pk).exists()
        member = Membership.objects.filter(competition=competition, user=user).exists()
        assert assessor or member, f"round {n}: neither role given ({outcomes})"
        if assessor and member:
            both.append(n)
    assert both == [], f"assessor and team member at once in {len(both)} of {ROUNDS} rounds: {both}"
