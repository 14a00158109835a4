"""A signed-in person's board (leaderboards/viewers.py): who they are is remembered per session
and told anew at once when a team or a role changes; their page is kept whole per session
and CSRF cookie, so a repeat reads nothing from the database and nothing of anyone else is shown."""
import pytest
from django.urls import reverse

from cupboard.leaderboards.services import leaderboard_refresh
from cupboard.teams.models import Membership
from tests.factories import make_team, make_user
from tests.leaderboards.conftest import make_scored, ndcg
from tests.personas import client_for
from tests.queries import page_and_queries

pytestmark = pytest.mark.django_db


@pytest.fixture
def dev(cast):
    phase = cast.competition.phases.get(slug="dev")
    make_scored(phase, team=cast.team_a, method="mine", scores=ndcg(sw=0.5, te=0.5))
    make_scored(phase, team=cast.team_b, method="theirs", scores=ndcg(sw=0.4, te=0.4))
    leaderboard_refresh(phase=phase)
    return phase


def _url(phase, name: str = "leaderboards:phase") -> str:
    return reverse(name, args=[phase.competition.slug, phase.slug])


@pytest.fixture(autouse=True)
def kept_states(settings):
    """The board state a process keeps is reused for the whole test: query counts do not depend
    on how fast the machine runs it."""
    settings.CUPBOARD_BOARD_STATE_SECONDS = 3600


def test_a_members_repeat_visit_reads_nothing_from_the_database(cast, dev):
    client = client_for(cast.participant)
    first, _ = page_and_queries(client, _url(dev))  # sets the CSRF cookie its log-out form needs
    second, _ = page_and_queries(client, _url(dev))
    third, count = page_and_queries(client, _url(dev))
    assert count == 0 and third == second
    assert ' own"' in third and 'title="Your teams and API token">participant<' in third
    json_url = reverse("leaderboards:export_json", kwargs={"competition_slug": dev.competition.slug,
                                                          "phase_slug": dev.slug})
    client.get(json_url)
    body, json_count = page_and_queries(client, json_url)
    assert json_count == 0 and "Team A" in body


def test_another_member_of_the_same_team_gets_their_own_shell(cast, dev):
    for _ in range(2):
        client_for(cast.participant).get(_url(dev))
    teammate = client_for(cast.teammate)
    teammate.get(_url(dev))
    page = teammate.get(_url(dev)).content.decode()
    assert ">teammate<" in page and ">participant<" not in page and ' own"' in page


def test_joining_a_team_is_seen_at_once(cast, dev):
    newcomer = make_user("newcomer")
    client = client_for(newcomer)
    client.get(_url(dev))
    assert ' own"' not in client.get(_url(dev)).content.decode()
    Membership.objects.create(competition=dev.competition, team=cast.team_b, user=newcomer)
    assert client.get(_url(dev)).content.decode().count(' own"') == 1


def test_leaving_a_team_is_seen_at_once(cast, dev):
    client = client_for(cast.outsider)
    client.get(_url(dev))
    assert ' own"' in client.get(_url(dev)).content.decode()
    Membership.objects.filter(user=cast.outsider).delete()  # a bulk delete: each row's signal still runs
    assert ' own"' not in client.get(_url(dev)).content.decode()


def _private_board(cast):
    """test-b, private until its reveal, with a run on its board."""
    test_b = cast.competition.phases.get(slug="test-b")
    make_scored(test_b, team=make_team(cast.competition, name="Team C"), method="hidden-run",
                scores=ndcg(sw=0.3, te=0.3))
    leaderboard_refresh(phase=test_b)
    return test_b


def test_a_person_named_organizer_sees_the_private_board_at_once(cast):
    test_b = _private_board(cast)
    person = make_user("new-organizer")
    client = client_for(person)
    client.get(_url(test_b))
    assert "hidden-run" not in client.get(_url(test_b)).content.decode()
    cast.competition.organizers.add(person)
    assert "hidden-run" in client.get(_url(test_b)).content.decode()
    cast.competition.organizers.remove(person)
    assert "hidden-run" not in client.get(_url(test_b)).content.decode()


def test_a_deactivated_member_is_no_longer_told_as_their_team(cast, dev):
    client = client_for(cast.participant)
    for _ in range(2):
        assert ' own"' in client.get(_url(dev)).content.decode()
    cast.participant.is_active = False
    cast.participant.save()
    assert ' own"' not in client.get(_url(dev)).content.decode()


def test_staff_taken_away_hides_the_private_board_at_once(cast):
    test_b = _private_board(cast)
    person = make_user("staff-member")
    person.is_staff = True
    person.save()
    client = client_for(person)
    for _ in range(2):
        assert "hidden-run" in client.get(_url(test_b)).content.decode()
    person.is_staff = False
    person.save()
    assert "hidden-run" not in client.get(_url(test_b)).content.decode()
