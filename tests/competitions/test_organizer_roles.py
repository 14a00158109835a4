"""A member of one of a competition's teams is never made its organizer, the same way
everywhere an organizer is named (the YAML loader, the browser's editor, the admin), and an
organizer never joins or creates one of its teams (competitions/roles.py): they see every
run and the hidden judgments. The same rule as for assessors."""
from __future__ import annotations

import pytest
import yaml
from django.core.exceptions import ValidationError
from django.test import Client
from django.urls import reverse

from cupboard.competitions.definition import EXAMPLES_DIR
from cupboard.competitions.definition_export import definition_data, definition_yaml
from cupboard.competitions.errors import DefinitionError
from cupboard.competitions.services import competition_load
from cupboard.teams.services import team_create, team_join
from tests.factories import make_team, make_user
from tests.personas import organizer, personas  # noqa: F401

pytestmark = pytest.mark.django_db


def _logged_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _organizers(competition) -> list[str]:
    return sorted(competition.organizers.values_list("username", flat=True))


def test_loading_a_definition_that_names_a_participant_is_refused_naming_the_team(personas):
    competition = personas.competition
    data = definition_data(competition, version=competition.config_version + 1)
    data["organizers"] = ["organizer", "participant"]
    with pytest.raises(DefinitionError) as refused:
        competition_load(data=data)
    assert refused.value.code == "organizer-in-team"
    (problem,) = refused.value.problems
    assert problem.startswith("organizers[1]: participant is in team Team A of this competition")
    competition.refresh_from_db()
    assert _organizers(competition) == ["organizer"] and competition.config_version == data["version"] - 1


def test_the_browser_editor_shows_the_refusal_at_its_line(organizer):
    data = yaml.safe_load((EXAMPLES_DIR / "ciral-like.yaml").read_text()) | {"organizers": ["organizer"]}
    competition = competition_load(data=data)
    make_team(competition, name="Lab", members=[make_user("alice")])
    text = definition_yaml(competition, version=2).replace("- organizer\n", "- organizer\n- alice\n")
    assert "- alice\n" in text
    response = _logged_in(organizer).post(reverse("competitions:definition_yaml", args=[competition.slug]),
                                          {"definition": text})
    assert response.status_code == 400
    (row,) = response.context["refusal"]["problems"]
    assert row["line"] == text.splitlines().index("- alice") + 1
    assert "alice is in team Lab of this competition" in row["message"]
    assert _organizers(competition) == ["organizer"]


def test_the_admin_refuses_the_same_organizer(personas):
    competition = personas.competition
    admin = make_user("root", is_staff=True, is_superuser=True)
    client = _logged_in(admin)
    url = reverse("admin:competitions_competition_change", args=[competition.pk])
    form = client.get(url).context["adminform"].form
    post = {name: form[name].value() for name in form.fields if form[name].value() is not None}
    post = {k: ([str(x) for x in v] if isinstance(v, list) else v) for k, v in post.items()}
    post["organizers"] = [str(personas.organizer.pk), str(personas.participant.pk)]
    response = client.post(url, post)
    assert response.status_code == 200, "refused: the form comes back"
    errors = response.context["adminform"].form.errors
    assert "participant is in team Team A" in " ".join(errors["organizers"])
    assert _organizers(competition) == ["organizer"]


@pytest.mark.parametrize("way", ["join", "create"])
def test_an_organizer_cannot_enter_a_team(personas, way):
    with pytest.raises(ValidationError) as refused:
        if way == "join":
            team_join(invite_code=personas.team_b.invite_code, user=personas.organizer)
        else:
            team_create(competition=personas.competition, user=personas.organizer, name="Inside job")
    assert refused.value.code == "organizer"
    assert not personas.competition.teams.filter(memberships__user=personas.organizer).exists()
