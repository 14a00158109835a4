"""Limits hold against people, not only teams (issue 15, finding 3): a member who leaves a team
that used its slots, and founds or joins another, carries what the team used."""
from datetime import timedelta

import pytest
import time_machine
from django.core.exceptions import ValidationError

from cupboard.submissions.errors import SubmissionRefused
from cupboard.submissions.quota import quota_status
from cupboard.teams.services import team_create, team_join, team_leave
from tests.factories import make_user
from tests.teams.conftest import NOON, limit_test_b, send


@pytest.fixture
def limited(world):
    return limit_test_b(world, daily=2, total=3, entry_deadline=NOON + timedelta(days=5))


def test_it_keeps_the_limits_of_a_member_who_leaves_and_founds_a_new_team(limited):
    w = limited
    with time_machine.travel(NOON, tick=False):
        send(w, w.team_a, w.participant, 1), send(w, w.team_a, w.participant, 2)
        team_leave(team=w.team_a, user=w.teammate)
        lantern = team_create(competition=w.competition, user=w.teammate, name="Lantern")
        status = quota_status(phase=w.test_b, team=lantern, now=NOON)
        assert (status.used_today, status.used_total) == (2, 2)
        with pytest.raises(SubmissionRefused) as caught:
            send(w, lantern, w.teammate, 3)
        assert caught.value.code == "daily_limit"
        # The team left behind keeps its own usage too.
        assert quota_status(phase=w.test_b, team=w.team_a, now=NOON).used_today == 2
    with time_machine.travel(NOON + timedelta(days=1), tick=False):
        send(w, lantern, w.teammate, 3, at=NOON + timedelta(days=1))
        with pytest.raises(SubmissionRefused) as caught:
            send(w, lantern, w.teammate, 4, at=NOON + timedelta(days=1))
        assert caught.value.code == "total_limit"


def test_it_refuses_a_join_that_takes_a_team_past_its_limits(limited):
    w = limited
    with time_machine.travel(NOON, tick=False):
        send(w, w.team_a, w.participant, 1), send(w, w.team_a, w.participant, 2)
        send(w, w.team_b, w.outsider, 3)
        team_leave(team=w.team_a, user=w.teammate)
        with pytest.raises(ValidationError) as caught:
            team_join(invite_code=w.team_b.invite_code, user=w.teammate)  # 1 + 2 > 2 today
        assert caught.value.code == "over_limit" and "Test B" in caught.value.messages[0]
        assert not w.team_b.memberships.filter(user=w.teammate).exists()
        # Someone who used nothing joins a team at its limit: nothing passes it.
        team_join(invite_code=w.team_a.invite_code, user=make_user())
    with time_machine.travel(NOON + timedelta(days=1), tick=False):
        team_join(invite_code=w.team_b.invite_code, user=w.teammate)  # 3 in total, the limit
        assert quota_status(phase=w.test_b, team=w.team_b, now=NOON + timedelta(days=1)).used_total == 3


def test_it_counts_a_submission_once_when_two_of_its_members_found_a_team_together(limited):
    w = limited
    with time_machine.travel(NOON, tick=False):
        send(w, w.team_a, w.participant, 1)
        team_leave(team=w.team_a, user=w.participant)
        team_leave(team=w.team_a, user=w.teammate)
        new = team_create(competition=w.competition, user=w.participant, name="Again")
        team_join(invite_code=new.invite_code, user=w.teammate)
        assert quota_status(phase=w.test_b, team=new, now=NOON).used_today == 1


def test_it_does_not_count_what_a_team_made_after_someone_left(limited):
    w = limited
    with time_machine.travel(NOON, tick=False):
        team_leave(team=w.team_a, user=w.teammate)
        send(w, w.team_a, w.participant, 1)
        lantern = team_create(competition=w.competition, user=w.teammate, name="Lantern")
        assert quota_status(phase=w.test_b, team=lantern, now=NOON).used_today == 0
