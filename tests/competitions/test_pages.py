"""Competition list and detail pages: what each persona sees, surprise groups hidden until their instant."""
from datetime import timedelta

import time_machine
from django.urls import reverse
from django.utils import timezone

from tests.factories import make_competition, make_topics
from tests.personas import personas, without_csrf  # noqa: F401


def test_it_lists_published_competitions_only(personas):
    make_competition(slug="draft-cup", title="Draft Cup", is_published=False, organizers=[personas.organizer])
    page = personas.client_for(personas.outsider).get(reverse("competitions:list")).content.decode()
    assert "Cup cup" in page and "Draft Cup" not in page
    page = personas.client_for(personas.organizer).get(reverse("competitions:list")).content.decode()
    assert "Draft Cup" in page


def test_it_404s_an_unpublished_competition_for_non_organizers(personas):
    draft = make_competition(slug="draft-cup", is_published=False, organizers=[personas.organizer])
    url = reverse("competitions:detail", args=[draft.slug])
    assert personas.client_for(personas.outsider).get(url).status_code == 404
    assert personas.client_for(personas.organizer).get(url).status_code == 200


def test_it_shows_instants_in_local_time_markup(personas):
    page = personas.client_for(personas.anonymous).get(personas.competition.get_absolute_url()).content.decode()
    closes = personas.competition.phases.get(slug="dev").closes_at
    assert f'<time datetime="{closes.isoformat()}" data-local>' in page
    assert f'data-countdown="{closes.isoformat()}"' in page


def test_it_shows_a_surprise_group_only_as_a_count_and_date(personas):
    cup = personas.competition
    make_topics(cup.phases.get(slug="dev"), "yo", ["1"])
    page = personas.client_for(personas.outsider).get(cup.get_absolute_url()).content.decode()
    assert "1 surprise language, announced on" in page
    for leak in (">yo<", "/yo/", "Yoruba", "S.Avg"):
        assert leak not in page, leak
    page = personas.client_for(personas.organizer).get(cup.get_absolute_url()).content.decode()
    assert "yo" in page and "surprise language, announced" not in page


def test_it_reveals_the_surprise_group_at_its_instant(personas):
    cup = personas.competition
    reveal_at = cup.groups.get(name="surprise").reveal_at
    make_topics(cup.phases.get(slug="dev"), "yo", ["1"])
    url = reverse("competitions:topics", args=[cup.slug, "dev", "yo"])
    client = personas.client_for(personas.outsider)
    with time_machine.travel(reveal_at - timedelta(seconds=1)):
        assert client.get(url).status_code == 404
    with time_machine.travel(reveal_at):
        page = client.get(cup.get_absolute_url()).content.decode()
        assert "Yoruba" in page and "announced on" not in page
        assert client.get(url).status_code == 200


def test_it_404s_hidden_topics_like_nonexistent_ones(personas):
    cup = personas.competition
    make_topics(cup.phases.get(slug="dev"), "yo", ["1"])
    client = personas.client_for(personas.outsider)
    hidden = client.get(reverse("competitions:topics", args=[cup.slug, "dev", "yo"]))
    missing = client.get(reverse("competitions:topics", args=[cup.slug, "dev", "zz"]))
    assert hidden.status_code == missing.status_code == 404
    assert without_csrf(hidden) == without_csrf(missing)


def test_it_serves_topics_of_visible_subsets_as_published(personas):
    cup = personas.competition
    make_topics(cup.phases.get(slug="dev"), "sw", {"6": "Bandari kubwa nchini Kenya iko wapi?"})
    response = personas.client_for(personas.anonymous).get(reverse("competitions:topics", args=[cup.slug, "dev", "sw"]))
    assert response.status_code == 200
    assert response.getvalue() == "6\tBandari kubwa nchini Kenya iko wapi?\n".encode()


def test_it_withholds_topics_until_the_phase_opens(personas):
    cup = personas.competition
    phase = cup.phases.get(slug="test-b")
    phase.opens_at = timezone.now() + timedelta(days=2)
    phase.save()
    make_topics(phase, "sw", ["1"])
    url = reverse("competitions:topics", args=[cup.slug, "test-b", "sw"])
    assert personas.client_for(personas.participant).get(url).status_code == 404
    assert personas.client_for(personas.organizer).get(url).status_code == 200
    with time_machine.travel(phase.opens_at):
        assert personas.client_for(personas.participant).get(url).status_code == 200
