"""Merging teams, as on Kaggle: the captain of one team merges it into another through that
team's invite link; members and submissions move; refused past the limits, the size limit or
the entry (merger) deadline."""
from datetime import timedelta

import pytest
import time_machine
from django.core.exceptions import ValidationError
from django.urls import reverse

from cupboard.audit.models import AuditEvent
from cupboard.submissions.models import Submission
from cupboard.submissions.quota import quota_status
from cupboard.teams.selectors import team_captain
from cupboard.teams.services import team_merge
from tests.personas import client_for
from tests.teams.conftest import NOON, limit_test_b, send


@pytest.fixture
def limited(world):
    return limit_test_b(world, daily=2, total=4, entry_deadline=NOON + timedelta(days=2))


def code_of(call) -> str:
    with pytest.raises(ValidationError) as caught:
        call()
    return caught.value.code


def test_it_moves_members_and_submissions_and_keeps_the_captain(limited):
    w = limited
    send(w, w.team_a, w.participant, 1, at=NOON - timedelta(days=1))
    own = send(w, w.team_a, w.participant, 2)
    theirs = send(w, w.team_b, w.outsider, 3, at=NOON - timedelta(days=1))
    Submission.objects.filter(pk=theirs.pk).update(selected_for_final=True)
    with time_machine.travel(NOON, tick=False):
        merged = team_merge(team=w.team_b, invite_code=w.team_a.invite_code, actor=w.outsider)
    assert merged == w.team_a
    assert sorted(merged.memberships.values_list("user__username", flat=True)) == ["outsider", "participant",
                                                                                   "teammate"]
    assert team_captain(team=merged) == w.participant
    moved = Submission.objects.get(pk=theirs.pk)
    assert (moved.team, moved.number, moved.selected_for_final) == (w.team_a, 3, True)
    assert not w.team_b.submissions.exists() and own.number == 2
    assert quota_status(phase=w.test_b, team=merged, now=NOON).used_total == 3
    event = AuditEvent.objects.get(action=AuditEvent.Action.TEAM_MERGED)
    assert event.summary == "outsider merged team Team B (outsider) into team Team A"


def test_it_refuses_a_merge_past_the_limits(limited):
    w = limited
    send(w, w.team_a, w.participant, 1), send(w, w.team_a, w.participant, 2)
    send(w, w.team_b, w.outsider, 3)
    with time_machine.travel(NOON, tick=False):
        assert code_of(lambda: team_merge(team=w.team_b, invite_code=w.team_a.invite_code,
                                          actor=w.outsider)) == "over_limit"  # 3 today > 2
    with time_machine.travel(NOON + timedelta(days=1), tick=False):
        team_merge(team=w.team_b, invite_code=w.team_a.invite_code, actor=w.outsider)  # 3 in total <= 4


def test_it_refuses_non_captains_the_size_limit_and_the_deadline(limited):
    w = limited
    with time_machine.travel(NOON, tick=False):
        assert code_of(lambda: team_merge(team=w.team_a, invite_code=w.team_b.invite_code,
                                          actor=w.teammate)) == "not_captain"
        assert code_of(lambda: team_merge(team=w.team_a, invite_code=w.team_a.invite_code,
                                          actor=w.participant)) == "bad_merge"
        w.competition.team_size_max = 2
        w.competition.save()
        assert code_of(lambda: team_merge(team=w.team_b, invite_code=w.team_a.invite_code,
                                          actor=w.outsider)) == "team_full"
    with time_machine.travel(NOON + timedelta(days=3), tick=False):
        assert code_of(lambda: team_merge(team=w.team_a, invite_code=w.team_b.invite_code,
                                          actor=w.participant)) == "entry_closed"
    assert w.team_b.memberships.count() == 1


def test_it_offers_the_merge_to_the_captain_on_the_invite_page(limited):
    w = limited
    invite = reverse("teams:join", args=[w.team_a.invite_code])
    with time_machine.travel(NOON, tick=False):
        assert b"Merge <bdi>Team B</bdi> into <bdi>Team A</bdi>" in client_for(w.outsider).get(invite).content
        assert b"Merge <bdi>Team A</bdi>" not in client_for(w.teammate).get(reverse("teams:join", args=[w.team_b.invite_code])).content
        response = client_for(w.outsider).post(reverse("teams:merge", args=[w.team_a.invite_code]))
    assert response.status_code == 302 and w.team_a.memberships.filter(user=w.outsider).exists()
