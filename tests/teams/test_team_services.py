"""team_create, team_join, team_leave: one team per user per competition."""
import pytest
from django.core.exceptions import ValidationError

from cupboard.teams.models import Membership
from cupboard.teams.services import team_create, team_join, team_leave
from tests.factories import make_competition, make_user


@pytest.fixture
def competition(db):
    return make_competition(slug="cup")


def code_of(call) -> str:
    with pytest.raises(ValidationError) as caught:
        call()
    return caught.value.code


def test_it_makes_the_creator_a_member(competition):
    user = make_user()
    team = team_create(competition=competition, user=user, name="  Deep   Retrievers ")
    assert (team.name, team.slug, team.created_by) == ("Deep Retrievers", "deep-retrievers", user)
    assert list(team.memberships.values_list("user", flat=True)) == [user.pk]


def test_it_refuses_a_taken_name_and_a_second_team(competition):
    user = make_user()
    team_create(competition=competition, user=user, name="Alpha")
    assert code_of(lambda: team_create(competition=competition, user=make_user(), name="alpha")) == "name_taken"
    assert code_of(lambda: team_create(competition=competition, user=user, name="Beta")) == "already_in_team"
    assert code_of(lambda: team_create(competition=competition, user=make_user(), name="!!!")) == "bad_name"
    # Another competition is another world.
    team_create(competition=make_competition(), user=user, name="Alpha")


def test_it_joins_with_an_invite_code_once(competition):
    team = team_create(competition=competition, user=make_user(), name="Alpha")
    friend = make_user()
    assert team_join(invite_code=team.invite_code, user=friend) == team
    assert team_join(invite_code=team.invite_code, user=friend) == team  # again: harmless
    assert team.memberships.count() == 2
    assert code_of(lambda: team_join(invite_code="nope", user=make_user())) == "bad_invite"


def test_it_refuses_joining_a_second_team(competition):
    alpha = team_create(competition=competition, user=make_user(), name="Alpha")
    beta_member = make_user()
    team_create(competition=competition, user=beta_member, name="Beta")
    assert code_of(lambda: team_join(invite_code=alpha.invite_code, user=beta_member)) == "already_in_team"


def test_it_lets_a_member_leave_and_join_elsewhere(competition):
    user = make_user()
    alpha = team_create(competition=competition, user=user, name="Alpha")
    beta = team_create(competition=competition, user=make_user(), name="Beta")
    team_leave(team=alpha, user=user)
    assert code_of(lambda: team_leave(team=alpha, user=user)) == "not_member"
    team_join(invite_code=beta.invite_code, user=user)
    assert Membership.objects.get(user=user).team == beta
    assert alpha.pk is not None and type(alpha).objects.filter(pk=alpha.pk).exists()  # the team stays


def test_a_name_in_arabic_or_persian_script_makes_a_team(competition):
    """Issue 33, item 13: slugify keeps only ASCII, so "فريق البحث" was refused as having no letter."""
    arabic = team_create(competition=competition, user=make_user(), name="فريق البحث")
    persian = team_create(competition=competition, user=make_user(), name="گروه بازیابی")
    assert (arabic.name, persian.name) == ("فريق البحث", "گروه بازیابی")
    assert arabic.slug.startswith("team-") and persian.slug.startswith("team-") and arabic.slug != persian.slug
    assert arabic.get_absolute_url().endswith(f"/teams/{arabic.slug}/")
    assert code_of(lambda: team_create(competition=competition, user=make_user(), name="فريق  البحث")) == "name_taken"
