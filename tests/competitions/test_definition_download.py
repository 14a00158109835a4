"""A competition downloaded as its definition's YAML loads back as the same competition: the
organizer area's download and a file on disk stay one source of truth."""
import pytest
import yaml
from django.utils import timezone

from cupboard.competitions.changes import definition_changes, definition_current
from cupboard.competitions.definition import DEFINITIONS_DIR, EXAMPLES_DIR, definition_load, definition_values
from cupboard.competitions.definition_export import definition_yaml
from cupboard.competitions.errors import DefinitionError
from cupboard.competitions.models import Competition
from cupboard.competitions.services import competition_load, competition_load_changes
from cupboard.demo.plan import COMPETITIONS
from tests.factories import make_user

FILES = sorted(DEFINITIONS_DIR.glob("*.yaml")) + sorted(EXAMPLES_DIR.glob("*.yaml"))


def _reloaded(competition: Competition) -> dict:
    return definition_values(definition_load(yaml.safe_load(definition_yaml(competition))))


@pytest.mark.django_db
@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_it_downloads_every_shipped_definition_as_a_file_that_loads_back_unchanged(path):
    competition = competition_load(data=path)
    assert definition_changes(definition_current(competition), _reloaded(competition)) == []
    assert competition_load_changes(data=yaml.safe_load(definition_yaml(competition)))[1] == []
    assert "*id" not in definition_yaml(competition)  # no alias, which the browser refuses


@pytest.mark.django_db
@pytest.mark.parametrize("plan", COMPETITIONS, ids=lambda p: p.definition_data(now=timezone.now())["slug"])
def test_it_keeps_organizers_pages_metadata_and_board_rules_of_the_demo(plan):
    make_user("organizer")
    competition = competition_load(data=plan.definition_data(now=timezone.now()))
    text = definition_yaml(competition)
    assert definition_changes(definition_current(competition), _reloaded(competition)) == []
    assert competition_load_changes(data=yaml.safe_load(text))[1] == []


@pytest.mark.django_db
def test_a_fresh_site_loading_the_download_gets_an_equal_competition():
    competition = competition_load(data=DEFINITIONS_DIR / "miracl-wsdm-cup.yaml")
    before, text = definition_current(competition), definition_yaml(competition)
    competition.subsets.all().delete()  # a subset protects its group
    competition.delete()
    again = competition_load(data=yaml.safe_load(text))
    assert definition_changes(before, definition_current(again)) == []
    assert definition_current(again) == before


@pytest.mark.django_db
def test_the_download_after_an_edit_in_the_organizer_area_loads_back_as_no_change():
    from datetime import timedelta

    from cupboard.competitions.schedule import phase_schedule_change

    competition = competition_load(data=EXAMPLES_DIR / "ciral-like.yaml")
    test = competition.phases.get(slug="test")
    phase_schedule_change(phase=test, actor=None, visibility=test.visibility, hidden_qrels=True,
                          reveal_at=test.reveal_at + timedelta(days=1))
    text = definition_yaml(Competition.objects.get())
    assert competition_load_changes(data=yaml.safe_load(text))[1] == []
    changed = yaml.safe_load(text) | {"title": "Another title"}
    with pytest.raises(DefinitionError) as refused:
        competition_load(data=changed)  # the same version with other content, as before
    assert refused.value.code == "version-not-bumped"
