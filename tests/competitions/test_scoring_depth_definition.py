"""The scoring depth in a competition's definition: derived from the measures and the runs'
allowed depth, or set by `scoring_depth`; a measure deeper than the runs may go is refused
when the file is loaded (naming the key), never when the first run is scored."""
import pytest
import yaml

from cupboard.competitions.definition import DEFINITIONS_DIR, EXAMPLES_DIR
from cupboard.competitions.errors import DefinitionError
from cupboard.competitions.models import Competition
from cupboard.competitions.services import competition_load

MIRACL = DEFINITIONS_DIR / "miracl-wsdm-cup.yaml"  # max_run_depth: 100, metrics [nDCG@10, R@100]


def _miracl(**changes) -> dict:
    data = yaml.safe_load(MIRACL.read_text())
    return data | changes


def _refused(data: dict) -> list[str]:
    with pytest.raises(DefinitionError) as caught:
        competition_load(data=data)
    assert not Competition.objects.exists()
    return list(caught.value.problems)


@pytest.mark.django_db
def test_it_refuses_a_measure_deeper_than_the_runs_may_go_at_load_time():
    assert _refused(_miracl(metrics=["nDCG@10", "R@1000"])) == [
        "metrics[1]: R@1000 looks deeper than max_run_depth 100 (documents per query a run may hold): "
        "raise max_run_depth to 1000 or cut the measure at 100"]


@pytest.mark.django_db
def test_it_refuses_a_measure_deeper_than_the_depth_set():
    assert _refused(_miracl(metrics=["nDCG@10", "AP", "R@100"], max_run_depth=1000, scoring_depth=50)) == [
        "metrics[2]: R@100 looks deeper than scoring_depth 50 (documents per query scored): "
        "raise scoring_depth to 100 or cut the measure at 50"]


@pytest.mark.django_db
def test_it_refuses_a_scoring_depth_deeper_than_the_runs():
    assert _refused(_miracl(scoring_depth=200)) == [
        "scoring_depth: 200 is deeper than max_run_depth 100, the most documents a run may hold per query"]


@pytest.mark.django_db
def test_it_scores_whole_runs_for_a_measure_without_cutoff_and_the_deepest_cutoff_otherwise():
    assert competition_load(data=MIRACL).scored_depth() == 100
    deep = competition_load(data=_miracl(slug="deep", metrics=["nDCG@10", "AP", "R@1000"], max_run_depth=1000))
    assert (deep.scoring_depth, deep.scored_depth()) == (None, 1000)


@pytest.mark.django_db
def test_a_set_depth_applies_until_a_new_version_drops_it():
    data = _miracl(metrics=["nDCG@10", "AP"], max_run_depth=1000, scoring_depth=100)
    competition = competition_load(data=data)
    assert (competition.scoring_depth, competition.scored_depth()) == (100, 100)
    del data["scoring_depth"]
    competition = competition_load(data=data | {"version": data["version"] + 1})
    assert (competition.scoring_depth, competition.scored_depth()) == (None, 1000)


@pytest.mark.django_db
def test_the_references_deep_example_scores_whole_runs():
    competition = competition_load(data=EXAMPLES_DIR / "trec-dl-like.yaml")
    assert (competition.max_run_depth, competition.scored_depth()) == (1000, 1000)
