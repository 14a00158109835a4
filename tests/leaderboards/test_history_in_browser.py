"""The history page in a real browser (Debian's chromium): plotly draws each team's score and
rank over time, a change's link opens the leaderboard as it stood then, the "as of" form
does the same, and nothing errs or overflows a phone's width."""
import re
from datetime import timedelta

import pytest
import time_machine
from django.utils import timezone

from cupboard.leaderboards.services import leaderboard_update
from tests.browser import chromium_page, leaderboard_teams, page_width, too_wide, watch_errors
from tests.factories import make_competition, make_team
from tests.leaderboards.conftest import make_scored, ndcg

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

T0 = timezone.now().replace(microsecond=0) - timedelta(days=3)
AS_OF = re.compile(r"/c/history/dev/leaderboard/\?as_of=")  # the board as it stood then


@pytest.fixture
def board(live_server):
    competition = make_competition(slug="history", known=["sw", "te"], surprise=[])
    phase = competition.phases.get(slug="dev")
    teams = {name: make_team(competition, name=name) for name in ("Alpha", "Bravo", "Charlie")}
    steps = [("Alpha", 0.3), ("Bravo", 0.5), ("Charlie", 0.4), ("Alpha", 0.6)]
    for day, (name, value) in enumerate(steps):
        with time_machine.travel(T0 + timedelta(hours=12 * day), tick=False):
            leaderboard_update(phase=phase, submission=make_scored(phase, team=teams[name],
                                                                   scores=ndcg(sw=value, te=value)))
    return live_server.url


@pytest.fixture
def page(board):
    with chromium_page() as page:
        yield page


def test_the_history_page_charts_and_links_to_the_past(board, page):
    errors = watch_errors(page, failed_requests=True)
    page.goto(f"{board}/c/history/dev/leaderboard/")
    page.click("a:text-is('History')")
    page.wait_for_url(f"{board}/c/history/dev/leaderboard/history/")
    page.wait_for_selector(".js-plotly-plot")
    assert page.locator(".js-plotly-plot").count() == 2
    traces = page.evaluate("[...document.querySelectorAll('.js-plotly-plot')].map(c => c.data.map(t => t.name))")
    assert traces == [["Alpha", "Bravo", "Charlie"]] * 2
    points = page.evaluate("document.querySelectorAll('.js-plotly-plot')[1].data.map(t => t.y)")
    assert points == [[1, 2, 3, 1], [1, 2], [2, 3]]  # ranks where they changed: Alpha, Bravo, Charlie
    assert "4 changes of 3 teams" in page.inner_text(".history-summary")

    page.locator(".history-instants a").last.click()  # the oldest change
    page.wait_for_url(AS_OF, wait_until="load")
    assert "as it stood on" in page.inner_text(".as-of")
    assert leaderboard_teams(page) == ["Alpha"]

    page.goto(f"{board}/c/history/dev/leaderboard/history/")
    page.fill("input[name=as_of]", (T0 + timedelta(hours=30)).strftime("%Y-%m-%dT%H:%M"))
    page.click("form.as-of button")
    page.wait_for_url(AS_OF, wait_until="load")
    assert leaderboard_teams(page) == ["Bravo", "Charlie", "Alpha"]
    assert not errors, errors
    page.set_viewport_size({"width": 375, "height": 800})
    assert not too_wide(page, board, ["/c/history/dev/leaderboard/history/"], 375)


@pytest.mark.parametrize("width", [1366, 390])
def test_each_change_says_who_moved(board, page, width):
    """Issue 24: the changes were bare timestamps; the newest says Alpha came back first."""
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(f"{board}/c/history/dev/leaderboard/history/")
    newest = page.locator(".history-instants > li").first.locator(".history-moves li").all_inner_texts()
    assert newest == ["Alpha: 0.300 → 0.600 nDCG@10, rank 3 → 1", "Bravo: 0.500 nDCG@10, rank 1 → 2",
                      "Charlie: 0.400 nDCG@10, rank 2 → 3"]
    assert page_width(page) <= width
