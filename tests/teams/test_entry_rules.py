"""When and how teams may form: the entry deadline (default: the final phase's opening), the
team size limit, look-alike names, and every change in the audit log."""
from datetime import timedelta

import pytest
from django.core.exceptions import ValidationError
from django.utils import timezone

from cupboard.audit.models import AuditEvent
from cupboard.teams.services import team_create, team_join, team_leave
from tests.factories import make_competition, make_user


def code_of(call) -> str:
    with pytest.raises(ValidationError) as caught:
        call()
    return caught.value.code


@pytest.mark.django_db
def test_it_closes_entry_when_the_final_phase_opens_by_default():
    competition = make_competition(entry_deadline=None)  # test-b (final) opened yesterday
    assert competition.entry_closes_at() == competition.phases.get(slug="test-b").opens_at
    assert code_of(lambda: team_create(competition=competition, user=make_user(), name="Late")) == "entry_closed"


@pytest.mark.django_db
def test_it_refuses_creating_and_joining_after_the_entry_deadline():
    now = timezone.now()
    competition = make_competition(entry_deadline=now + timedelta(hours=1))
    team = team_create(competition=competition, user=make_user(), name="Early")
    later = now + timedelta(hours=2)
    assert code_of(lambda: team_create(competition=competition, user=make_user(), name="Late", now=later)) \
        == "entry_closed"
    assert code_of(lambda: team_join(invite_code=team.invite_code, user=make_user(), now=later)) == "entry_closed"
    team_join(invite_code=team.invite_code, user=make_user(), now=now)


@pytest.mark.django_db
def test_it_refuses_a_member_past_the_team_size_limit():
    competition = make_competition(team_size_max=2)
    team = team_create(competition=competition, user=make_user(), name="Pair")
    team_join(invite_code=team.invite_code, user=make_user())
    assert code_of(lambda: team_join(invite_code=team.invite_code, user=make_user())) == "team_full"
    assert team.memberships.count() == 2


@pytest.mark.django_db
@pytest.mark.parametrize("lookalike", ["Okаpi", "OKAPI", "Ｏｋａｐｉ", "Oka\u200bpi", "Okapí", "Οkapi"])
def test_it_refuses_a_team_name_that_looks_like_another(lookalike):
    competition = make_competition()
    team_create(competition=competition, user=make_user(), name="Okapi")
    assert code_of(lambda: team_create(competition=competition, user=make_user(), name=lookalike)) == "name_taken"
    team_create(competition=competition, user=make_user(), name="Okapis")


@pytest.mark.django_db
def test_it_audits_every_team_change():
    competition = make_competition()
    founder, friend = make_user("founder"), make_user("friend")
    team = team_create(competition=competition, user=founder, name="Lantern")
    team_join(invite_code=team.invite_code, user=friend)
    team_leave(team=team, user=friend)
    events = AuditEvent.objects.filter(competition=competition).order_by("pk")
    assert [(e.action, e.actor, e.is_public) for e in events] == [
        ("team_created", founder, False), ("team_joined", friend, False), ("team_left", friend, False)]
    assert events.last().summary == "friend left team Lantern"
