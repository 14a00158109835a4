"""A phase's board rules in the definition: `freeze_at` or `freeze_days` (the public board
stands still before the end) and `ladder` (leaderboards/ladder.py). Loaded onto the phase,
cleared by a version without them, refused where they make no sense, naming the key."""
from datetime import datetime, timedelta, timezone

import pytest
import yaml

from cupboard.competitions.definition import DEFINITIONS_DIR, definition_parse
from cupboard.competitions.errors import DefinitionError
from cupboard.competitions.models import Competition
from cupboard.competitions.services import competition_load

pytestmark = pytest.mark.django_db
MIRACL = DEFINITIONS_DIR / "miracl-wsdm-cup.yaml"  # phases dev, test-a (live, ranking best), test-b (final, selected)
CLOSES = datetime(2023, 1, 23, 23, 59, 59, tzinfo=timezone.utc)


def _miracl(phase: int, **keys) -> dict:
    data = yaml.safe_load(MIRACL.read_text())
    data["phases"][phase] |= keys
    return data


def _refused(data: dict) -> list[str]:
    with pytest.raises(DefinitionError) as caught:
        competition_load(data=data)
    assert not Competition.objects.exists()
    return list(caught.value.problems)


def test_freeze_days_and_the_ladder_reach_the_phase_until_a_version_drops_them():
    competition = competition_load(data=_miracl(1, freeze_days=7, ladder=True))
    phase = competition.phases.get(slug="test-a")
    assert (phase.freeze_at, phase.ladder) == (CLOSES - timedelta(days=7), True)
    assert (competition.phases.get(slug="dev").freeze_at, competition.phases.get(slug="dev").ladder) == (None, False)
    data = yaml.safe_load(MIRACL.read_text())
    data["version"] += 1
    phase = competition_load(data=data).phases.get(slug="test-a")
    assert (phase.freeze_at, phase.ladder) == (None, False)


def test_a_freeze_instant_is_taken_as_given():
    phase = competition_load(data=_miracl(1, freeze_at="2023-01-20T12:00:00Z")).phases.get(slug="test-a")
    assert phase.freeze_at == datetime(2023, 1, 20, 12, tzinfo=timezone.utc)


def test_a_file_that_states_the_defaults_applies_the_same_values_as_one_without_them():
    # so the digest of every file written before these keys is what it was
    plain = definition_parse(yaml.safe_load(MIRACL.read_text()))
    assert definition_parse(_miracl(1, ladder=False, freeze_at=None)) == plain
    assert "ladder" not in plain["phases"][1] and "freeze_at" not in plain["phases"][1]


@pytest.mark.parametrize(("keys", "problem"), [
    ({"freeze_days": 2, "freeze_at": "2023-01-20T00:00:00Z"}, "freeze_days: give freeze_at or freeze_days, not both"),
    ({"freeze_days": 400}, "freeze_days: the freeze must start after opens_at and before closes_at"),
    ({"freeze_at": "2023-02-01T00:00:00Z"}, "freeze_at: the freeze must start after opens_at and before closes_at"),
])
def test_a_freeze_outside_the_phase_is_refused(keys, problem):
    assert _refused(_miracl(1, **keys)) == [f"phases[1].{problem}"]


def test_the_ladder_needs_ranking_by_best():
    assert _refused(_miracl(2, ladder=True)) == [
        "phases[2].ladder: the Ladder replaces a team's best: it needs ranking: best (set it on a final phase)"]
    assert competition_load(data=_miracl(2, ladder=True, ranking="best")).phases.get(slug="test-b").ladder
