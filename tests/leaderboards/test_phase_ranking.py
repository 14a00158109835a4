"""Which run of a team counts, per phase: its best on live phases, the ones it selects on
the final one. A test upload scoring 0 on Dev (the demo walk-through's example run) used to replace
Lighthouse's standing there, because the Cup's `ranking: selected` applied to every phase."""
import pytest
import yaml
from django.urls import reverse

from cupboard.competitions.definition import DEFINITIONS_DIR, definition_parse
from cupboard.competitions.errors import DefinitionError
from cupboard.competitions.models import Phase
from cupboard.competitions.services import competition_load
from cupboard.leaderboards.models import LeaderboardRow
from cupboard.leaderboards.services import leaderboard_refresh
from tests.factories import make_team, make_user
from tests.leaderboards.conftest import make_scored, ndcg
from tests.personas import client_for

CUP = DEFINITIONS_DIR / "miracl-wsdm-cup.yaml"


def _cup() -> dict:
    return yaml.safe_load(CUP.read_text())


def _rankings(data: dict) -> dict[str, str]:
    return {p["slug"]: p["ranking"] for p in definition_parse(data)["phases"]}


def test_it_ranks_live_phases_by_the_best_run_and_the_final_by_the_selected_ones():
    assert _rankings(_cup()) == {"dev": "best", "test-a": "best", "test-b": "selected"}


def test_it_takes_a_top_level_ranking_as_the_final_phases_default_only():
    data = _cup()
    data["ranking"] = "last"
    del data["phases"][2]["ranking"]
    assert _rankings(data) == {"dev": "best", "test-a": "best", "test-b": "last"}
    data["phases"][0]["ranking"] = "last"
    assert _rankings(data)["dev"] == "last"


def test_it_names_a_bad_phase_ranking_with_its_path():
    data = _cup()
    data["phases"][1]["ranking"] = "latest"
    with pytest.raises(DefinitionError) as caught:
        definition_parse(data)
    assert "phases[1].ranking: must be one of best, last, selected, runs, not 'latest'" in caught.value.problems


@pytest.mark.django_db
def test_a_zero_test_upload_on_dev_keeps_the_team_standing():
    cup = competition_load(data=CUP)
    dev = cup.phases.get(slug="dev")
    codes = list(cup.subsets.values_list("code", flat=True))
    lighthouse = make_team(cup, name="Lighthouse", members=[make_user("alice")])
    okapi = make_team(cup, name="Okapi", members=[make_user("chen")])
    good = make_scored(dev, team=lighthouse, method="hybrid", scores=ndcg(**dict.fromkeys(codes, 0.632)), minutes_ago=60)
    make_scored(dev, team=okapi, method="bm25", scores=ndcg(**dict.fromkeys(codes, 0.5)), minutes_ago=50)
    make_scored(dev, team=lighthouse, method="my first run", scores=ndcg(sw=0.0), minutes_ago=1)

    leaderboard_refresh(phase=dev)

    first = LeaderboardRow.objects.get(phase=dev, rank=1)
    assert (first.team_id, first.submission_id) == (lighthouse.pk, good.pk)


@pytest.mark.django_db
@pytest.mark.parametrize("slug, says", [("dev", "Your best-scoring run counts"),
                                        ("test-b", "The runs you select count")])
def test_the_upload_form_says_which_run_counts(cast, slug, says):
    response = client_for(cast.participant).get(reverse("submissions:upload", args=["cup", slug]))

    assert says in response.content.decode()


@pytest.mark.django_db
def test_the_upload_form_says_when_the_latest_run_counts(cast):
    Phase.objects.filter(competition=cast.competition, slug="dev").update(ranking=Phase.Ranking.LAST)
    response = client_for(cast.participant).get(reverse("submissions:upload", args=["cup", "dev"]))

    assert "Your latest scored run counts" in response.content.decode()
