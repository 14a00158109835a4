"""Roles granted at once never make one person both an assessor and a team member of one
competition (PostgreSQL, one connection per thread): naming an assessor and joining or
creating a team lock the competition row first (cupboard/locking.py), so the second to come
sees the first's role and is refused."""
import threading
from functools import partial

import pytest
from django.core.exceptions import ValidationError
from django.db import connection

from cupboard.competitions.assessors import assessor_add
from cupboard.teams.models import Membership
from cupboard.teams.services import team_create, team_join
from tests.factories import make_team, make_user
from tests.personas import build_cast

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

ROUNDS = 30


def _race(*steps) -> list[str]:
    """Run the steps in threads released together; each outcome is "ok" or the refusal's code."""
    start = threading.Barrier(len(steps))
    outcomes: list[str] = []

    def run(step) -> None:
        try:
            start.wait()
            step()
            outcomes.append("ok")
        except ValidationError as error:
            outcomes.append(error.code)
        finally:
            connection.close()  # each thread had its own connection

    threads = [threading.Thread(target=run, args=(step,)) for step in steps]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not any(thread.is_alive() for thread in threads), "a thread still waits after 120 s: a deadlock?"
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
