"""A phase's `residual_of` in the definition (issue 34): earlier phases whose judgments are
removed from its runs before scoring. Loaded onto the phase, cleared by a version without it,
listed in the definition as downloaded, refused (naming the key) where it names a phase that
is not earlier."""
import pytest
import yaml

from cupboard.competitions.definition import DEFINITIONS_DIR
from cupboard.competitions.definition_export import definition_data
from cupboard.competitions.errors import DefinitionError
from cupboard.competitions.models import Competition
from cupboard.competitions.services import competition_load

pytestmark = pytest.mark.django_db
MIRACL = DEFINITIONS_DIR / "miracl-wsdm-cup.yaml"  # phases dev, test-a, test-b


def _miracl(phase: int, **keys) -> dict:
    data = yaml.safe_load(MIRACL.read_text())
    data["phases"][phase] |= keys
    return data


def test_residual_of_reaches_the_phase_and_the_downloaded_definition():
    competition = competition_load(data=_miracl(2, residual_of=["dev", "test-a"]))
    assert competition.phases.get(slug="test-b").residual_of == ["dev", "test-a"]
    assert competition.phases.get(slug="dev").residual_of is None
    exported = {p["slug"]: p for p in definition_data(competition)["phases"]}
    assert exported["test-b"]["residual_of"] == ["dev", "test-a"] and "residual_of" not in exported["dev"]
    data = yaml.safe_load(MIRACL.read_text())
    data["version"] += 1
    assert competition_load(data=data).phases.get(slug="test-b").residual_of is None


@pytest.mark.parametrize("phase, slugs, where", [
    (1, ["test-b"], "phases[1].residual_of[0]: 'test-b' is not a phase before 'test-a' (earlier: dev)"),
    (0, ["dev"], "phases[0].residual_of[0]: 'dev' is not a phase before 'dev' (earlier: none)"),
    (2, ["dev", "round-9"], "phases[2].residual_of[1]: 'round-9' is not a phase before 'test-b'"),
])
def test_a_phase_that_is_not_earlier_is_refused(phase, slugs, where):
    with pytest.raises(DefinitionError) as caught:
        competition_load(data=_miracl(phase, residual_of=slugs))
    assert not Competition.objects.exists()
    assert any(where in problem for problem in caught.value.problems), caught.value.problems


def test_official_results_need_the_instant_they_are_published():
    with pytest.raises(DefinitionError) as caught:
        competition_load(data=_miracl(0, official_results=True))
    assert any("phases[0].reveal_at: official results are frozen at the reveal" in p for p in caught.value.problems)
