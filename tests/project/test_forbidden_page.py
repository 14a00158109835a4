"""A 403 is a page of the site (its header, the reason, a way on), not a bare "403 Forbidden".

Another team's submission answers 404, as an id nobody used does (issue 33 item 10), so the
page is opened where a 403 remains: a participant at the organizers' desk."""
from django.urls import reverse

from tests.personas import client_for
from tests.submissions.conftest import _worlds, world  # noqa: F401


def test_a_forbidden_page_is_a_real_page(world):  # noqa: F811
    response = client_for(world.participant).get(reverse("competitions:manage", args=[world.competition.slug]))
    page = response.content.decode()
    assert response.status_code == 403
    assert "<h1>You may not open this page</h1>" in page and "Organizers only." in page
    assert 'class="site"' in page and "logged in as <strong>participant</strong>" in page
