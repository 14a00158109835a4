"""The phase definition endpoint (GET .../api/<competition>/<phase>/definition/): public, token
optional; the phase's subsets the caller may see (never a hidden one) and how it scores."""
import pytest
from django.test import Client

from cupboard.accounts.services import api_token_create
from evaluator.client import api as contract

pytestmark = pytest.mark.django_db


def _path(world, phase="dev"):
    return contract.path_of(contract.DEFINITION_ROUTE, competition_slug=world.competition.slug, phase_slug=phase)


def _client(user=None) -> Client:
    return Client(HTTP_AUTHORIZATION=f"{contract.AUTH_SCHEME} {api_token_create(user=user)}") if user else Client()


def test_anyone_gets_the_phases_visible_subsets_and_scoring(world):
    answer = _client().get(_path(world))
    assert answer.status_code == 200
    document = answer.json()
    assert [s["code"] for s in document["subsets"]] == ["sw", "te"]  # yo: its group is not revealed yet
    assert (document["benchmark"], document["metrics"], document["max_run_depth"], document["scoring_depth"]) == \
        ("miracl", ["nDCG@10", "R@100"], 1000, 100)


def test_a_hidden_subset_is_named_to_organizers_only(world):
    assert [s["code"] for s in _client(world.participant).get(_path(world)).json()["subsets"]] == ["sw", "te"]
    assert [s["code"] for s in _client(world.organizer).get(_path(world)).json()["subsets"]] == ["sw", "te", "yo"]


def test_the_averages_are_the_boards_over_what_the_caller_sees(world):
    """K.Avg over the known languages, then Avg; S.Avg only once a surprise language is seen."""
    def averages(user):
        return [(a["label"], a["subsets"]) for a in _client(user).get(_path(world)).json()["averages"]]
    assert averages(world.participant) == [("K.Avg", ["sw", "te"]), ("Avg", ["sw", "te"])]
    assert averages(world.organizer) == [("K.Avg", ["sw", "te"]), ("S.Avg", ["yo"]), ("Avg", ["sw", "te", "yo"])]


def test_a_session_does_not_count_and_a_wrong_token_is_refused(world):
    session = Client()
    session.force_login(world.organizer)
    assert "yo" not in [s["code"] for s in session.get(_path(world)).json()["subsets"]]
    wrong = Client(HTTP_AUTHORIZATION=f"{contract.AUTH_SCHEME} nope").get(_path(world))
    assert wrong.status_code == 401 and wrong.json()["errors"][0]["code"] == "bad_token"
