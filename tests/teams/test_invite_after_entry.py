"""After the entry deadline no page suggests an invite link (issue 33, item 13): the link is
closed too, so the team page says why it has none (and offers no replacement) and the
new-team page no longer says "open an invite link instead". Checked in chromium at both widths."""
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from tests.browser import chromium, page_width, watch_errors
from tests.factories import make_user
from tests.personas import build_cast


def _closed_cast():
    cast = build_cast()
    cast.competition.entry_deadline = timezone.now() - timedelta(hours=1)
    cast.competition.save()
    return cast


def _client(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.mark.django_db
def test_no_invite_link_is_offered_once_teams_can_no_longer_form():
    cast = _closed_cast()
    page = _client(cast.participant).get(cast.team_a.get_absolute_url()).content.decode()
    assert cast.team_a.invite_code not in page and "Replace the invite link" not in page
    assert "nobody can join this team any more" in page
    create = _client(make_user("newcomer")).get(f"/c/{cast.competition.slug}/teams/new/").content.decode()
    assert "Have an invite link" not in create and "the entry deadline" in create
    cast.competition.entry_deadline = timezone.now() + timedelta(hours=1)  # before it: the link is there
    cast.competition.save()
    page = _client(cast.participant).get(cast.team_a.get_absolute_url()).content.decode()
    assert cast.team_a.invite_code in page and "Replace the invite link" in page


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("width", [1366, 390])
def test_in_the_browser_at_both_widths(live_server, width):
    cast = _closed_cast()
    cookie = {"name": "sessionid", "value": _client(cast.participant).cookies["sessionid"].value,
              "url": live_server.url}
    with chromium() as browser:
        context = browser.new_context(viewport={"width": width, "height": 900})
        context.add_cookies([cookie])
        page = context.new_page()
        errors = watch_errors(page, failed_requests=True)
        assert page.goto(live_server.url + cast.team_a.get_absolute_url()).status == 200
        assert page.locator("#entry-closed").is_visible() and page.locator("code.invite").count() == 0
        assert page_width(page) <= width
        assert errors == []
