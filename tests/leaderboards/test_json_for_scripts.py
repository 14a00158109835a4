"""The leaderboards' JSON as a client script reads it (evaluator/client/api.py LEADERBOARD_ROUTE,
HISTORY_ROUTE, OFFICIAL_ROUTE): history.json is the history page's data, seen as the page
sees it; a token is the session's equal; what is not there for the caller is refused in the
API's error shape."""
from datetime import timedelta

import pytest
import time_machine
from django.test import Client
from django.utils import timezone

from cupboard.accounts.services import api_token_create
from cupboard.competitions.viewer import Viewer
from cupboard.leaderboards.selectors import history_for
from cupboard.leaderboards.services import leaderboard_update
from evaluator.client import api as contract
from tests.leaderboards.conftest import make_scored, ndcg
from tests.personas import client_for

pytestmark = pytest.mark.django_db


def _path(route, phase="dev", competition="cup"):
    return contract.page_path(route, competition_slug=competition, phase_slug=phase)


def _token(user) -> Client:
    return Client(HTTP_AUTHORIZATION=f"{contract.AUTH_SCHEME} {api_token_create(user=user)}")


@pytest.fixture
def steps(cast):
    """Dev: team A scores 0.41234 at t0, team B overtakes it at t1, team A comes back at t2."""
    phase = cast.competition.phases.get(slug="dev")
    t0 = (timezone.now() - timedelta(hours=3)).replace(microsecond=0)
    instants = [t0, t0 + timedelta(hours=1), t0 + timedelta(hours=2)]
    for instant, team, value in zip(instants, (cast.team_a, cast.team_b, cast.team_a), (0.41234, 0.51234, 0.61234),
                                    strict=True):
        with time_machine.travel(instant, tick=False):
            leaderboard_update(phase=phase, submission=make_scored(phase, team=team, scores=ndcg(sw=value, te=value)))
    return phase, instants


def test_history_json_is_the_pages_data(cast, steps):
    phase, (t0, t1, t2) = steps
    answer = client_for(cast.anonymous).get(_path(contract.HISTORY_ROUTE))
    assert answer.status_code == 200 and answer["Content-Type"] == "application/json"
    data = answer.json()
    assert set(data) == set(contract.HISTORY_FIELDS)
    assert (data["competition"], data["phase"], data["metric"], data["rounded_to"], data["frozen_since"]) == \
        ("cup", "dev", "nDCG@10", 3, None)
    at = [t.isoformat().replace("+00:00", "Z") for t in (t0, t1, t2)]
    assert data["instants"] == at
    assert [tuple(p.values()) for p in data["points"]] == [
        (at[0], "Team A", 1, 0.412), (at[1], "Team B", 1, 0.512), (at[1], "Team A", 2, 0.412),
        (at[2], "Team A", 1, 0.612), (at[2], "Team B", 2, 0.512)]
    history = history_for(phase=phase, viewer=Viewer(cast.anonymous, cast.competition))
    assert [p["value"] for p in data["points"]] == [p.value for p in history.points]


def test_organizers_get_full_precision_and_the_public_the_sites_digits(cast, steps):
    organizer = client_for(cast.organizer).get(_path(contract.HISTORY_ROUTE)).json()
    # organizers see the surprise yo too (no run there: 0 in the Avg), unrounded
    assert organizer["rounded_to"] is None and organizer["points"][0]["value"] == pytest.approx(0.41234 * 2 / 3, abs=1e-15)
    by_token = _token(cast.organizer).get(_path(contract.HISTORY_ROUTE)).json()
    assert by_token == organizer
    board = _token(cast.organizer).get(_path(contract.LEADERBOARD_ROUTE)).json()
    assert board["rounded_to"] is None and board["rows"][0]["averages"]["Avg"]["nDCG@10"] == \
        pytest.approx(0.61234 * 2 / 3, abs=1e-15)
    public = _token(cast.participant).get(_path(contract.LEADERBOARD_ROUTE)).json()
    assert public["rounded_to"] == 3 and public["rows"][0]["averages"]["Avg"]["nDCG@10"] == 0.612


def test_a_private_board_has_no_history_before_its_reveal(cast):
    phase = cast.competition.phases.get(slug="test-b")
    leaderboard_update(phase=phase, submission=make_scored(phase, team=cast.team_a, scores=ndcg(sw=0.7, te=0.7)))
    for client in (client_for(cast.anonymous), client_for(cast.participant), _token(cast.participant)):
        refused = client.get(_path(contract.HISTORY_ROUTE, "test-b"))
        assert refused.status_code == 403
        [error] = refused.json()["errors"]
        assert error["code"] == "leaderboard-not-public" and "not public until" in error["message"]
        assert "Team A" not in refused.content.decode()
    assert [p["team"] for p in _token(cast.organizer).get(_path(contract.HISTORY_ROUTE, "test-b")).json()["points"]] \
        == ["Team A"]
    with time_machine.travel(phase.reveal_at + timedelta(hours=1), tick=False):
        after = client_for(cast.anonymous).get(_path(contract.HISTORY_ROUTE, "test-b"))
        assert after.status_code == 200 and after.json()["points"] == []  # what was hidden then stays hidden


def test_what_is_not_there_is_a_404_in_the_apis_shape(cast):
    from tests.factories import make_competition

    make_competition(slug="draft", organizers=[cast.organizer], is_published=False)
    for route in (contract.LEADERBOARD_ROUTE, contract.HISTORY_ROUTE, contract.OFFICIAL_ROUTE):
        for path in (_path(route, "nope"), _path(route, "dev", "draft")):
            for client in (client_for(cast.anonymous), client_for(cast.participant), _token(cast.participant)):
                answer = client.get(path)
                assert answer.status_code == 404 and answer.json()["errors"][0]["code"] == "not_found", path
        assert _token(cast.organizer).get(_path(route, "dev", "draft")).status_code == (404 if route ==
                                                                                        contract.OFFICIAL_ROUTE else 200)
    official = client_for(cast.anonymous).get(_path(contract.OFFICIAL_ROUTE, "dev"))  # not a final phase
    assert official.status_code == 404 and "No official results" in official.json()["errors"][0]["message"]


def test_a_wrong_token_is_refused_not_read_as_the_public(cast):
    wrong = Client(HTTP_AUTHORIZATION=f"{contract.AUTH_SCHEME} nope").get(_path(contract.LEADERBOARD_ROUTE))
    assert wrong.status_code == 401 and wrong.json()["errors"][0]["code"] == "bad_token"
