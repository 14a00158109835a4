"""The run-metadata filter in Debian's chromium, on a laptop and a phone: choosing "Zero-shot:
yes" reloads the board with only the rows whose run says so (the chart and the export links
follow), the page stays as wide as the screen, and no script fails."""
import pytest

from cupboard.leaderboards.services import leaderboard_refresh
from cupboard.submissions.models import Submission
from tests.browser import chromium_page, leaderboard_teams, too_wide, watch_errors
from tests.factories import make_competition, make_team, set_run_metadata
from tests.leaderboards.conftest import make_scored, ndcg

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def board(live_server):
    competition = set_run_metadata(make_competition(slug="meta-cup", known=["sw", "te"], surprise=[]))
    phase = competition.phases.get(slug="dev")
    for name, value, zero_shot, run_type in [("Alpha", 0.7, False, "automatic"), ("Bravo", 0.5, True, "manual"),
                                             ("Charlie", 0.3, True, "automatic")]:
        submission = make_scored(phase, team=make_team(competition, name=name), scores=ndcg(sw=value, te=value))
        Submission.objects.filter(pk=submission.pk).update(
            metadata={"run_type": run_type, "zero_shot": zero_shot, "model": f"a long model name of {name}"})
    leaderboard_refresh(phase=phase)
    return live_server.url, "/c/meta-cup/dev/leaderboard/"


@pytest.fixture
def page(board):
    with chromium_page() as page:
        yield page


@pytest.mark.parametrize("width", [1366, 390])
def test_choosing_zero_shot_keeps_those_rows_at_any_width(board, page, width):
    base, path = board
    page.set_viewport_size({"width": width, "height": 900})
    errors = watch_errors(page, failed_requests=True)
    page.goto(base + path)
    assert leaderboard_teams(page) == ["Alpha", "Bravo", "Charlie"]
    with page.expect_navigation():
        page.get_by_label("Zero-shot").select_option("yes")  # applies on change, no button press
    assert page.url.endswith("meta_zero_shot=yes") and leaderboard_teams(page) == ["Bravo", "Charlie"]
    assert page.locator("table.leaderboard tbody td:first-child").all_inner_texts() == ["2", "3"]
    assert "Showing 2 of 3 rows" in page.locator(".filter-notice").inner_text()
    assert page.locator("a", has_text="CSV").get_attribute("href").endswith(".csv?meta_zero_shot=yes")
    page.wait_for_selector(".js-plotly-plot .main-svg")
    legend = page.locator(".js-plotly-plot").first.inner_text()
    assert "Bravo" in legend and "Alpha" not in legend  # the chart follows the filter
    with page.expect_navigation():
        page.get_by_label("Run type").select_option("manual")
    assert leaderboard_teams(page) == ["Bravo"]
    assert not too_wide(page, base, [page.url.removeprefix(base)], width)
    page.get_by_role("link", name="show all").click()
    page.wait_for_load_state("load")
    assert leaderboard_teams(page) == ["Alpha", "Bravo", "Charlie"] and not errors
