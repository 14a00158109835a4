"""The API's lists (evaluator/client/api.py COMPETITIONS_ROUTE, SUBMISSIONS_ROUTE): the
competitions and phases the caller may see with the addresses a client goes on to, and the
caller's team's submissions to a phase, each as the status answer gives it."""
import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import resolve
from django.utils import timezone

from cupboard.accounts.services import api_token_create
from cupboard.leaderboards import views as board_views
from cupboard.leaderboards import views_history
from cupboard.submissions import api, api_lists
from evaluator.client import api as contract
from tests.factories import make_competition
from tests.leaderboards.conftest import make_scored, ndcg

pytestmark = pytest.mark.django_db

COMPETITIONS = contract.path_of(contract.COMPETITIONS_ROUTE)


def _client(user=None) -> Client:
    return Client(HTTP_AUTHORIZATION=f"{contract.AUTH_SCHEME} {api_token_create(user=user)}") if user else Client()


def _slugs(answer) -> list[str]:
    return [c["slug"] for c in answer.json()["competitions"]]


def _submissions(world, phase="dev"):
    return contract.path_of(contract.SUBMISSIONS_ROUTE, competition_slug=world.competition.slug, phase_slug=phase)


def test_the_routes_are_the_contracts():
    assert COMPETITIONS == "/submissions/api/competitions/" and resolve(COMPETITIONS).func is api_lists.competitions
    path = contract.path_of(contract.SUBMISSIONS_ROUTE, competition_slug="cup", phase_slug="dev")
    assert path == "/submissions/api/cup/dev/submissions/" and resolve(path).func is api_lists.submissions
    boards = {route: contract.page_path(route, competition_slug="cup", phase_slug="dev")
              for route in (contract.LEADERBOARD_ROUTE, contract.OFFICIAL_ROUTE, contract.HISTORY_ROUTE)}
    assert boards == {contract.LEADERBOARD_ROUTE: "/c/cup/dev/leaderboard.json",
                      contract.OFFICIAL_ROUTE: "/c/cup/dev/official.json",
                      contract.HISTORY_ROUTE: "/c/cup/dev/leaderboard/history.json"}
    assert resolve(boards[contract.LEADERBOARD_ROUTE]).func is board_views.export_json
    assert resolve(boards[contract.HISTORY_ROUTE]).func is views_history.history_json
    assert resolve(boards[contract.OFFICIAL_ROUTE]).func is views_history.official_json
    assert contract.board_url("https://x.org/", contract.HISTORY_ROUTE, "cup", "dev") == \
        "https://x.org/c/cup/dev/leaderboard/history.json"
    assert contract.competitions_url("https://x.org") == "https://x.org/submissions/api/competitions/"
    assert contract.submissions_url("https://x.org", "cup", "dev") == "https://x.org/submissions/api/cup/dev/submissions/"


def test_a_draft_is_listed_to_its_organizers_only(world):
    make_competition(slug="draft", organizers=[world.organizer], is_published=False)
    assert sorted(_slugs(_client().get(COMPETITIONS))) == ["cup", "other-cup"]
    assert sorted(_slugs(_client(world.participant).get(COMPETITIONS))) == ["cup", "other-cup"]
    assert sorted(_slugs(_client(world.organizer).get(COMPETITIONS))) == ["cup", "draft", "other-cup"]
    assert sorted(_slugs(_client(world.staff).get(COMPETITIONS))) == ["cup", "draft", "other-cup"]


def test_each_phase_in_order_with_what_the_caller_sees_of_it(world):
    cup = next(c for c in _client().get(COMPETITIONS).json()["competitions"] if c["slug"] == "cup")
    assert set(cup) == set(contract.COMPETITION_FIELDS)
    assert cup["title"] == world.competition.title and cup["url"].endswith("/c/cup/")
    dev, test_b = cup["phases"]
    assert all(set(phase) == set(contract.PHASE_FIELDS) for phase in cup["phases"])
    assert (dev["slug"], dev["name"], dev["is_open"], dev["is_final"]) == ("dev", "Development", True, False)
    assert dev["opens"] == world.dev.opens_at.isoformat() and dev["closes"] == world.dev.closes_at.isoformat()
    # test-b is private until its reveal: its board is not the public's, its official results not there yet
    assert (test_b["leaderboard_visible"], test_b["official_url"], test_b["is_final"]) == (False, None, True)
    assert test_b["reveal_at"] == world.test_b.reveal_at.isoformat()
    mine = next(c for c in _client(world.organizer).get(COMPETITIONS).json()["competitions"] if c["slug"] == "cup")
    assert mine["phases"][1]["leaderboard_visible"] is True
    # the addresses are the contract's, on the site's address
    assert dev["definition_url"].endswith(contract.path_of(contract.DEFINITION_ROUTE, competition_slug="cup",
                                                           phase_slug="dev"))
    assert dev["leaderboard_url"].endswith("/c/cup/dev/leaderboard.json")
    assert dev["history_url"].endswith("/c/cup/dev/leaderboard/history.json")
    assert dev["submissions_url"].endswith("/submissions/api/cup/dev/submissions/")


def test_official_results_are_named_once_there(world):
    from cupboard.leaderboards.models import FrozenSnapshot

    world.test_b.reveal_at = timezone.now() - timezone.timedelta(minutes=1)
    world.test_b.save(update_fields=["reveal_at"])
    def official():
        cup = next(c for c in _client().get(COMPETITIONS).json()["competitions"] if c["slug"] == "cup")
        return cup["phases"][1]["official_url"]
    assert official() is None
    FrozenSnapshot.objects.create(phase=world.test_b, frozen_at=timezone.now(), csv="", json="{}",
                                  csv_sha256="0" * 64, json_sha256="0" * 64)  # as the reveal's freeze makes
    assert official().endswith("/c/cup/test-b/official.json")


def test_a_session_does_not_count_and_a_wrong_token_is_refused(world):
    make_competition(slug="draft", organizers=[world.organizer], is_published=False)
    session = Client()
    session.force_login(world.organizer)
    assert "draft" not in _slugs(session.get(COMPETITIONS))
    wrong = Client(HTTP_AUTHORIZATION=f"{contract.AUTH_SCHEME} nope").get(COMPETITIONS)
    assert wrong.status_code == 401 and wrong.json()["errors"][0]["code"] == "bad_token"


def test_the_listing_costs_the_same_queries_for_many_competitions(world, django_assert_max_num_queries):
    for n in range(5):
        make_competition(slug=f"more-{n}")
    # 4 the key of the kept answer (competitions/page_cache.py: competitions, phases, groups,
    # latest page change), 5 the listing itself; a repeat is kept and runs none
    with django_assert_max_num_queries(9):
        assert len(_slugs(_client().get(COMPETITIONS))) == 7


def test_a_team_gets_its_own_submissions_newest_first_as_the_status_answer(world):
    mine = [make_scored(world.dev, team=world.team_a, scores=ndcg(sw=0.1 * n, te=0.2), minutes_ago=10 - n)
            for n in range(3)]
    make_scored(world.dev, team=world.team_b, scores=ndcg(sw=0.9))
    make_scored(world.test_b, team=world.team_a, scores=ndcg(sw=0.5))
    client = _client(world.participant)
    answer = client.get(_submissions(world))
    assert answer.status_code == 200
    document = answer.json()
    assert (document["competition"], document["phase"], document["team"]) == ("cup", "dev", "Team A")
    assert [s["id"] for s in document["submissions"]] == [s.pk for s in reversed(mine)]
    for listed in document["submissions"]:
        assert listed == client.get(contract.path_of(contract.STATUS_ROUTE, pk=listed["id"])).json()
    assert document["submissions"][0]["scores"]["sw"]["nDCG@10"] == pytest.approx(0.2)
    teammate = _client(world.teammate).get(_submissions(world)).json()["submissions"]
    assert [s["id"] for s in teammate] == [s.pk for s in reversed(mine)]
    assert len(_client(world.outsider).get(_submissions(world)).json()["submissions"]) == 1


def test_a_longer_list_reads_run_files_and_scores_once(world):
    """Each further submission costs its topic counts and per-query values (2 queries), not
    also its run files (twice) and scores: those are read once for the list (selectors.RUN_FILES)."""
    client = _client(world.participant)

    def queries() -> int:
        with CaptureQueriesContext(connection) as captured:
            assert client.get(_submissions(world)).status_code == 200
        return len(captured.captured_queries)
    make_scored(world.dev, team=world.team_a, scores=ndcg(sw=0.1, te=0.2), minutes_ago=10)
    one = queries()
    for n in range(4):
        make_scored(world.dev, team=world.team_a, scores=ndcg(sw=0.2 + 0.1 * n, te=0.2), minutes_ago=9 - n)
    assert len(client.get(_submissions(world)).json()["submissions"]) == 5
    assert queries() - one <= 2 * 4


def test_a_private_phase_lists_what_the_team_sees_of_its_runs(world):
    """test-b shows each team its own scores before the reveal: the list says as much as the status."""
    made = make_scored(world.test_b, team=world.team_a, scores=ndcg(sw=0.5, te=0.25))
    client = _client(world.participant)
    [listed] = client.get(_submissions(world, "test-b")).json()["submissions"]
    assert listed == client.get(contract.path_of(contract.STATUS_ROUTE, pk=made.pk)).json()
    assert listed["shown"] == "own" and listed["scores"]["sw"]["nDCG@10"] == 0.5


def test_refusals_in_the_apis_shape(world):
    no_token = Client().get(_submissions(world))
    assert no_token.status_code == 401 and no_token.json()["errors"][0]["code"] == "bad_token"
    no_team = _client(world.organizer).get(_submissions(world))
    assert no_team.status_code == 403 and no_team.json()["errors"][0]["code"] == "no_team"
    unknown = _client(world.participant).get(_submissions(world, "nope"))
    assert unknown.status_code == 404 and unknown.json()["errors"][0]["code"] == "not_found"
    draft = make_competition(slug="draft", is_published=False)
    hidden = _client(world.participant).get(contract.path_of(contract.SUBMISSIONS_ROUTE, competition_slug=draft.slug,
                                                             phase_slug="dev"))
    assert hidden.status_code == 404
    assert api.no_phase("draft", "dev").content == hidden.content  # as a phase that does not exist
