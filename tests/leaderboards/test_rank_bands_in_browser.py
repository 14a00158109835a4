"""Rank bands in a real browser (Debian's chromium): the Band column, the tiers' shading and
the leader's bracket on the table, and the intervals as error bars on the charts."""
import pytest

from cupboard.leaderboards.services import leaderboard_refresh
from tests.browser import watch_errors
from tests.factories import make_competition, make_team
from tests.leaderboards.test_rank_bands import scored_with_queries

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def board(live_server):
    competition = make_competition(slug="banded", known=["sw", "te"], surprise=[])
    phase = competition.phases.get(slug="dev")
    for seed, (name, level) in enumerate([("Alpha", 0.7), ("Bravo", 0.5), ("Charlie", 0.5)], start=1):
        scored_with_queries(phase, team=make_team(competition, name=name), levels={"sw": level, "te": level}, seed=seed)
    scored_with_queries(phase, method="BM25", levels={"sw": 0.3, "te": 0.3}, seed=9)
    leaderboard_refresh(phase=phase)
    return f"{live_server.url}/c/banded/dev/leaderboard/"


def test_it_shows_bands_tiers_and_intervals(board, page):
    errors = watch_errors(page)
    page.goto(board)
    rows = page.locator("table.leaderboard tbody tr")
    assert page.locator("table.leaderboard th.band").inner_text() == "Band"
    assert page.locator("table.leaderboard td.band").all_inner_texts() == ["1", "2-3", "2-3", ""]
    # The leader's tier is bracketed (a coloured inset on its first cell); the next tier is shaded.
    leader_edge = rows.nth(0).locator("td").first.evaluate("td => getComputedStyle(td).boxShadow")
    assert "inset" in leader_edge and "none" == rows.nth(1).locator("td").first.evaluate(
        "td => getComputedStyle(td).boxShadow")
    shade = [rows.nth(i).locator("td").nth(1).evaluate("td => getComputedStyle(td).backgroundColor") for i in range(3)]
    assert shade[1] == shade[2] != shade[0]
    assert "rank band 2-3" in rows.nth(1).locator("td.avg").last.get_attribute("title")
    # one group (known: sw, te) holds every subset: a single-average board, its note names Avg alone
    assert "Avg is tested on the per-query values of all its languages together" in page.locator(".bands-note").inner_text()
    # Charts: the Avg with intervals by tier, and the bars per language, both with error bars.
    page.wait_for_selector(".js-plotly-plot")
    assert page.locator(".js-plotly-plot").count() == 3
    assert "intervals, by tier" in page.locator(".js-plotly-plot").first.inner_text()
    assert page.locator(".js-plotly-plot .errorbar").count() >= 4 + 2 * 4
    # Sorting by Band keeps the table usable: the leader stays first.
    page.click("th:text-is('Band')")
    assert page.locator("table.leaderboard tbody tr td:nth-child(2)").first.inner_text().startswith("Alpha")
    assert errors == []
