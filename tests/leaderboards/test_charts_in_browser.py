"""The leaderboard's charts in a real browser (Debian's chromium) on a laptop and a phone: every
language labelled on the team x language heatmap (plotly skipped every other one of the Cup's
18), no mode bar over a chart's title on a phone, and no two tick labels of a chart on top of
each other."""
import pytest

from cupboard.leaderboards.services import leaderboard_refresh
from tests.browser import TICKS, TITLE_CLEAR, watch_errors
from tests.factories import make_competition, make_team
from tests.leaderboards.conftest import make_scored, ndcg

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LANGUAGES = ["ar", "bn", "en", "es", "fa", "fi", "fr", "hi", "id", "ja", "ko", "ru", "sw", "te", "th", "zh", "de", "yo"]

@pytest.fixture
def board(live_server):
    competition = make_competition(slug="cup18", known=LANGUAGES, surprise=[])
    phase = competition.phases.get(slug="dev")
    for i, name in enumerate(["Alpha retrieval lab", "Bravo team of many words", "Charlie", "Delta", "Echo"]):
        make_scored(phase, team=make_team(competition, name=name), method=f"method of {name}",
                    scores=ndcg(**{code: 0.3 + 0.02 * i + 0.01 * j for j, code in enumerate(LANGUAGES)}))
    make_scored(phase, method="BM25", scores=ndcg(**dict.fromkeys(LANGUAGES, 0.2)))
    leaderboard_refresh(phase=phase)
    return f"{live_server.url}/c/cup18/dev/leaderboard/"


@pytest.mark.parametrize("width", [1366, 390])
def test_every_language_is_labelled_and_no_label_covers_another(board, page, width):
    errors = watch_errors(page)
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(board)
    page.wait_for_selector(".js-plotly-plot .hm")
    page.screenshot(path=f"/tmp/h-rough/charts-{width}.png", full_page=True)
    charts = page.evaluate(TICKS)
    heatmap = next(chart for chart in charts if chart["heatmap"])
    # every language, not every other one, and every row (five teams and the baseline); a chart
    # narrower than 700 px (a phone's, or a laptop's half) turns the grid: a language a row
    assert sorted([heatmap["xtick"]["count"], heatmap["ytick"]["count"]]) == [6, len(LANGUAGES)]
    assert [c["title"] for c in charts if c["xtick"]["overlaps"] or c["ytick"]["overlaps"]] == []
    assert page.evaluate(TITLE_CLEAR) == []
    assert errors == []


def test_on_a_phone_no_mode_bar_covers_a_title(board, page):
    page.set_viewport_size({"width": 390, "height": 900})
    page.goto(board)
    page.wait_for_selector(".js-plotly-plot")
    for chart in page.locator(".js-plotly-plot").all():
        chart.click(position={"x": 100, "y": 150})  # a tap: plotly shows its mode bar on hover
        assert chart.locator(".modebar").count() == 0 or not chart.locator(".modebar").is_visible()
