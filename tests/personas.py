"""Named personas, so a permission test is one line per who-may-do-what.

Everyone lives in one world built by `build_cast()`:

    competition        the default `make_competition` (known sw, te; surprise yo; phases dev, test-b)
    other_competition  a second competition with its own organizer
    organizer          organizer of `competition`
    other_organizer    organizer of `other_competition` only
    participant        member of team_a in `competition`
    teammate           the other member of team_a
    outsider           member of team_b in `competition`
    anonymous          not logged in (AnonymousUser)
    staff              is_staff: organizes everything

Two ways to use it:

    # pytest style: import the fixtures you need into the test module
    from tests.personas import personas, organizer, outsider  # noqa: F401

    def test_it_hides_x(personas):
        response = personas.client_for(personas.outsider).get(url)

    # Django TestCase style (data built once per class, as in healthchecks' BaseTestCase)
    class HideTestCase(PersonasTestCase):
        def test_it_hides_x(self):
            response = self.client_for(self.outsider).get(url)
"""
from __future__ import annotations

import re
from dataclasses import dataclass

import pytest
from django.contrib.auth.models import AnonymousUser, User
from django.test import Client, TestCase

from cupboard.competitions.models import Competition
from cupboard.teams.models import Team
from tests.factories import make_competition, make_team, make_user

__all__ = ["Cast", "build_cast", "client_for", "personas", "organizer", "other_organizer", "participant",
           "teammate", "outsider", "anonymous", "staff", "PersonasTestCase"]

PERSONA_NAMES = ("organizer", "other_organizer", "participant", "teammate", "outsider", "anonymous", "staff")


def without_csrf(response) -> bytes:
    """A page's bytes with its CSRF token blanked: Django masks the token afresh in every
    answer (the log-out form of a signed-in person's page), so two answers that say the same
    thing differ only there."""
    return re.sub(rb'name="csrfmiddlewaretoken" value="[^"]*"', b'name="csrfmiddlewaretoken" value=""',
                  response.content)


def client_for(user) -> Client:
    """A test client logged in as `user` (a plain client for the anonymous persona)."""
    client = Client()
    if user is not None and user.is_authenticated:
        client.force_login(user)
    return client


@dataclass
class Cast:
    competition: Competition
    other_competition: Competition
    team_a: Team
    team_b: Team
    organizer: User
    other_organizer: User
    participant: User
    teammate: User
    outsider: User
    anonymous: AnonymousUser
    staff: User

    client_for = staticmethod(client_for)

    def everyone(self) -> dict:
        """persona name -> user, for tests that walk through all of them."""
        return {name: getattr(self, name) for name in PERSONA_NAMES}


def build_cast(**competition_fields) -> Cast:
    """Create the personas' world; keyword arguments go to `make_competition` for `competition`."""
    organizer = make_user("organizer")
    other_organizer = make_user("other_organizer")
    participant, teammate, outsider = make_user("participant"), make_user("teammate"), make_user("outsider")
    staff = make_user("staff", is_staff=True)
    competition = make_competition(slug=competition_fields.pop("slug", "cup"), organizers=[organizer],
                                   **competition_fields)
    other_competition = make_competition(slug="other-cup", organizers=[other_organizer])
    team_a = make_team(competition, name="Team A", members=[participant, teammate])
    team_b = make_team(competition, name="Team B", members=[outsider])
    return Cast(competition=competition, other_competition=other_competition, team_a=team_a, team_b=team_b,
                organizer=organizer, other_organizer=other_organizer, participant=participant, teammate=teammate,
                outsider=outsider, anonymous=AnonymousUser(), staff=staff)


@pytest.fixture
def personas(db) -> Cast:
    return build_cast()


def _persona_fixture(name: str):
    @pytest.fixture(name=name)
    def persona(personas):
        return getattr(personas, name)

    persona.__doc__ = f"The `{name}` persona (see the module docstring)."
    return persona


organizer = _persona_fixture("organizer")
other_organizer = _persona_fixture("other_organizer")
participant = _persona_fixture("participant")
teammate = _persona_fixture("teammate")
outsider = _persona_fixture("outsider")
anonymous = _persona_fixture("anonymous")
staff = _persona_fixture("staff")


class PersonasTestCase(TestCase):
    """Base class: every persona and the cast's rows as class attributes (self.organizer, ...)."""

    @classmethod
    def setUpTestData(cls):
        cls.cast = build_cast()
        for name, value in vars(cls.cast).items():
            setattr(cls, name, value)

    client_for = staticmethod(client_for)
