"""The YAML's team rules: `entry_deadline` (default: when the final phase opens) and `team_size_max`."""
from datetime import datetime, timezone

import pytest
import yaml

from cupboard.competitions.definition import DEFINITIONS_DIR
from cupboard.competitions.errors import DefinitionError
from cupboard.competitions.services import competition_load


def _miracl(**extra) -> dict:
    return {**yaml.safe_load((DEFINITIONS_DIR / "miracl-wsdm-cup.yaml").read_text()), **extra}


@pytest.mark.django_db
def test_it_defaults_entry_to_the_final_phase_opening_and_teams_to_ten():
    cup = competition_load(data=_miracl())
    assert (cup.entry_deadline, cup.team_size_max) == (None, 10)
    assert cup.entry_closes_at() == datetime(2023, 1, 9, tzinfo=timezone.utc)  # Test B opens


@pytest.mark.django_db
def test_it_reads_an_entry_deadline_and_a_team_size():
    cup = competition_load(data=_miracl(entry_deadline="2023-01-02T00:00:00Z", team_size_max=4))
    assert (cup.entry_closes_at(), cup.team_size_max) == (datetime(2023, 1, 2, tzinfo=timezone.utc), 4)
    # A later version without the key falls back to the final phase's opening.
    cup = competition_load(data=_miracl(version=_miracl()["version"] + 1))
    assert cup.entry_closes_at() == datetime(2023, 1, 9, tzinfo=timezone.utc)


@pytest.mark.django_db
def test_it_names_bad_team_rules():
    with pytest.raises(DefinitionError) as caught:
        competition_load(data=_miracl(entry_deadline="2023-01-02", team_size_max=0))
    assert list(caught.value.problems) == ["entry_deadline: must carry a UTC offset, e.g. 2023-01-19T23:59:59Z",
                                     "team_size_max: must be at least 1"]
