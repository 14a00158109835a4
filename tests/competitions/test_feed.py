"""The competition's Atom feed of public events, parsed as XML: phases opened, surprise
languages revealed and private leaderboards published appear from their instant on, never
before (no hidden language is named, no future reveal announced), whoever asks."""
import xml.etree.ElementTree as ET
from datetime import timedelta

import pytest
import time_machine
from django.urls import reverse

from tests.personas import (
    client_for,
    personas,  # noqa: F401 - the fixture
)

ATOM = "{http://www.w3.org/2005/Atom}"
pytestmark = pytest.mark.django_db


def entries(personas, user=None) -> list[dict]:
    response = client_for(user).get(reverse("competitions:feed", args=[personas.competition.slug]))
    assert response.status_code == 200 and response["Content-Type"].startswith("application/atom+xml")
    feed = ET.fromstring(response.content)
    assert feed.tag == f"{ATOM}feed"
    return [{"title": e.findtext(f"{ATOM}title"), "id": e.findtext(f"{ATOM}id"),
             "summary": e.findtext(f"{ATOM}summary"), "updated": e.findtext(f"{ATOM}updated")}
            for e in feed.iter(f"{ATOM}entry")]


def test_before_the_reveals_only_opened_phases_appear(personas):
    for user in (None, personas.participant, personas.organizer):  # the same public feed for everyone
        found = entries(personas, user)
        assert [e["title"] for e in found] == ["Test B (final) opened", "Development opened"]
        text = client_for(user).get(reverse("competitions:feed", args=[personas.competition.slug])).content.decode()
        assert "Yoruba" not in text and "(yo)" not in text and "Leaderboard of" not in text


def test_reveals_appear_at_their_instant_with_the_languages_named(personas):
    competition = personas.competition
    surprise = competition.groups.get(name="surprise")
    test_b = competition.phases.get(slug="test-b")
    with time_machine.travel(surprise.reveal_at + timedelta(seconds=1), tick=False):
        titles = [e["title"] for e in entries(personas)]
    assert titles[0] == "Surprise languages revealed: Yoruba (yo)" and "Leaderboard of Test B (final) published" not in titles
    with time_machine.travel(test_b.reveal_at + timedelta(seconds=1), tick=False):
        found = entries(personas)
    assert found[0]["title"] == "Leaderboard of Test B (final) published"
    assert found[0]["updated"].startswith(f"{test_b.reveal_at:%Y-%m-%dT%H:%M:%S}")
    assert len({e["id"] for e in found}) == len(found) == 4


def test_a_draft_has_no_feed_but_for_its_organizers(personas):
    competition = personas.competition
    competition.is_published = False
    competition.save()
    url = reverse("competitions:feed", args=[competition.slug])
    assert client_for(None).get(url).status_code == 404
    assert client_for(personas.participant).get(url).status_code == 404
    assert client_for(personas.organizer).get(url).status_code == 200


def test_the_competition_page_links_it_as_an_alternate(personas):
    page = client_for(None).get(reverse("competitions:detail", args=[personas.competition.slug])).content.decode()
    feed = reverse("competitions:feed", args=[personas.competition.slug])
    assert f'<link rel="alternate" type="application/atom+xml" title="{personas.competition.title}: public events" ' \
           f'href="{feed}">' in page


def test_every_entry_id_is_an_absolute_iri_on_the_sites_address(personas, settings):
    """RFC 4287: atom:id is an IRI, absolute; the same whichever host name the reader used."""
    settings.SITE_URL = "https://cup.example.org"
    found = entries(personas)
    assert found and all(e["id"].startswith("https://cup.example.org/") and "/cup/" in e["id"] for e in found), found
    assert len({e["id"] for e in found}) == len(found)
