"""Right-to-left text where cupboard hosts Arabic and Persian (issue 33, item 13): a team or
method named in Arabic sits in its leaderboard cells isolated (<bdi>), laid out right to left
without turning the row, and the judging page's query and passage take their own direction
(dir="auto"). Checked in chromium at 1366 and 390 px."""
import pytest
from django.test import Client
from django.urls import reverse

from cupboard.leaderboards.services import leaderboard_refresh
from cupboard.submissions.models import Submission
from cupboard.teams.models import Team
from tests.browser import chromium, watch_errors
from tests.factories import make_team
from tests.leaderboards.conftest import make_scored, ndcg
from tests.personas import build_cast

TEAM, METHOD = "فريق البحث 2", "بازیابی چندزبانه"  # Arabic team, Persian method; digits inside


def _board():
    cast = build_cast()
    phase = cast.competition.phases.get(slug="dev")
    team = make_team(cast.competition, name=TEAM)
    Team.objects.filter(pk=team.pk).update(slug="fariq")  # team_create's slug (make_team keeps the letters)
    make_scored(phase, team=team, method=METHOD, scores=ndcg(sw=0.7, te=0.6))
    make_scored(phase, team=cast.team_a, method="bm25 (ltr)", scores=ndcg(sw=0.5, te=0.5))
    leaderboard_refresh(phase=phase)
    return cast, reverse("leaderboards:phase", args=[cast.competition.slug, phase.slug])


@pytest.mark.django_db
def test_user_names_are_isolated_in_the_table():
    cast, url = _board()
    html = Client().get(url).content.decode()
    assert f"<td><bdi>{TEAM}</bdi></td>" in html and f"<bdi>{METHOD}</bdi>" in html
    assert "<td><bdi>Team A</bdi></td>" in html
    # The pages about a run or a team isolate the names too.
    submission = Submission.objects.get(method_name=METHOD)
    organizer = Client()
    organizer.force_login(cast.organizer)
    run = organizer.get(submission.get_absolute_url()).content.decode()
    assert f"<h1><bdi>{TEAM}</bdi> #1: <bdi>{METHOD}</bdi></h1>" in run
    team = organizer.get(submission.team.get_absolute_url()).content.decode()
    assert f"<h1><bdi>{TEAM}</bdi></h1>" in team and f"<td><bdi>{METHOD}</bdi></td>" in team


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("width", [1366, 390])
def test_in_the_browser_they_read_right_to_left_in_a_left_to_right_row(live_server, width):
    cast, url = _board()
    with chromium() as browser:
        page = browser.new_page(viewport={"width": width, "height": 900})
        errors = watch_errors(page, failed_requests=True)
        assert page.goto(live_server.url + url).status == 200
        for name in (TEAM, METHOD):
            bdi = page.locator("table.leaderboard bdi", has_text=name)
            assert bdi.evaluate("e => e.matches(':dir(rtl)')"), f"{name} is not laid out right to left"
            assert bdi.evaluate("e => e.closest('tr').matches(':dir(ltr)')"), "the row turned"
        english = page.locator("table.leaderboard bdi", has_text="bm25 (ltr)")
        assert english.evaluate("e => e.matches(':dir(ltr)')")
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        assert errors == []
