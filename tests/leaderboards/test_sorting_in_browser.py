"""The leaderboard table sorts by any column in a real browser (Debian's chromium)."""
import pytest

from cupboard.leaderboards.services import leaderboard_refresh
from tests.browser import chromium_page, leaderboard_teams
from tests.factories import make_competition, make_team
from tests.leaderboards.conftest import make_scored, ndcg

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def board(live_server):
    competition = make_competition(slug="sortable", known=["sw", "te"], surprise=[])
    phase = competition.phases.get(slug="dev")
    for name, sw, te in [("Alpha", 0.5, 0.1), ("Bravo", 0.1, 0.9), ("Charlie", 0.3, 0.3)]:
        make_scored(phase, team=make_team(competition, name=name), scores=ndcg(sw=sw, te=te))
    leaderboard_refresh(phase=phase)
    return f"{live_server.url}/c/sortable/dev/leaderboard/"


@pytest.fixture
def page(board):
    with chromium_page() as page:
        yield page


def _teams(page):
    return page.locator("table.leaderboard tbody tr td:nth-child(2)").all_inner_texts()


def test_it_sorts_by_a_column_and_back(board, page):
    page.goto(board)
    assert leaderboard_teams(page) == ["Bravo", "Alpha", "Charlie"]  # by rank: Avg 0.5, 0.3, 0.3 (earlier first)

    page.click("th:text-is('sw')")
    assert leaderboard_teams(page) == ["Alpha", "Charlie", "Bravo"]  # a score column sorts best first
    page.click("th:text-is('sw')")
    assert leaderboard_teams(page) == ["Bravo", "Charlie", "Alpha"]
    page.click("th:text-is('Team')")
    assert leaderboard_teams(page) == ["Alpha", "Bravo", "Charlie"]
    page.click("th:text-is('#')")
    assert leaderboard_teams(page) == ["Bravo", "Alpha", "Charlie"]
    assert page.locator(".js-plotly-plot").count() == 2  # plotly.js loaded from our URL and drew bars and heatmap
