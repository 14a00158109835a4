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


@pytest.mark.django_db
def test_an_entry_deadline_after_the_final_phase_closes_is_refused():
    """Issue 33, item 13: it was accepted, and pages then offered joining a finished competition."""
    closes = next(p["closes_at"] for p in _miracl()["phases"] if p.get("is_final"))
    with pytest.raises(DefinitionError) as caught:
        competition_load(data=_miracl(entry_deadline="2023-03-01T00:00:00Z"))
    (problem,) = caught.value.problems
    assert problem.startswith("entry_deadline: 2023-03-01 00:00 UTC is after phase 'test-b' closes")
    competition_load(data=_miracl(entry_deadline=closes))  # at the close: accepted


@pytest.mark.django_db
def test_the_admin_refuses_the_same_deadline():
    from django.test import Client
    from django.urls import reverse

    from tests.admin_forms import admin_form_data
    from tests.factories import make_user

    cup = competition_load(data=_miracl())
    client = Client()
    client.force_login(make_user("root", is_staff=True, is_superuser=True))
    url = reverse("admin:competitions_competition_change", args=[cup.pk])
    data = admin_form_data(client.get(url)) | {"entry_deadline_0": "2023-03-01", "entry_deadline_1": "00:00:00"}
    response = client.post(url, data)
    assert response.status_code == 200, "refused: the form comes back"
    assert "After phase test-b closes" in " ".join(response.context["adminform"].form.errors["entry_deadline"])
    cup.refresh_from_db()
    assert cup.entry_deadline is None
