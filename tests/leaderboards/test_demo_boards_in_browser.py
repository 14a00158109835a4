"""The demo's two widest boards in chromium at a laptop's 1366 x 768 and a phone's 390 px, as a
first-time visitor opens them: the MIRACL WSDM Cup's (18 languages, five run-metadata columns)
and CLIRMatrix's (72 language pairs). Loaded as a fresh clone loads them (no shared data).

At 1366 px the Cup's first language column is on the first screen without scrolling (the
metadata columns stood before it, 660 px wide); on a phone the team column stays while the
scores scroll. Every chart is drawn by the small plotly bundle with no console error, no two
tick labels of a chart overlap, no title meets a label or a menu, and no mode bar shows after
a tap on a phone. CLIRMatrix's bars open on its groups' averages (72 pairs x 7 runs were
unreadable) and its menu shows one source language's pairs.
"""
import pytest

from cupboard.staticfiles import PLOTLY
from tests.browser import TICKS, TITLE_CLEAR, charts_drawn, page_width, watch_errors
from tests.demo.loaded import loaded_demo

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

CUP, CLIR = "/c/miracl-wsdm-cup/dev/leaderboard/", "/c/clirmatrix/test/leaderboard/"
HEIGHTS = {1366: 768, 390: 844}
# The first language's heading (a score column that is no average and no rank band) and the box of
# the table's scrolling frame.
FIRST_LANGUAGE = """() => {
  const th = [...document.querySelectorAll('table.leaderboard thead th.num:not(.avg):not(.band)')]
    .find((h) => h.textContent.trim() !== '#');
  const wrap = document.querySelector('.leaderboard-wrap').getBoundingClientRect();
  const box = th.getBoundingClientRect();
  return {label: th.textContent.trim(), right: box.right, bottom: box.bottom, frame: wrap.right};
}"""


@pytest.fixture
def board(live_server):
    """The site's address, the demo loaded (tests/demo/loaded.py; the `page` fixture asks for `board`)."""
    loaded_demo()
    return live_server.url


def _open(page, url: str) -> list:
    page.goto(url)
    charts_drawn(page)
    return page.evaluate(TICKS)


def test_the_demo_boards_show_languages_and_readable_charts(board, page):
    """Both widths on one loaded demo, each in a page of its own (a width per test loaded the two
    competitions and started chromium twice)."""
    for width in HEIGHTS:
        screen = page.context.browser.new_page(viewport={"width": width, "height": HEIGHTS[width]})
        try:
            boards_at(screen, board, width)
        finally:
            screen.close()


def boards_at(page, board: str, width: int) -> None:
    errors = watch_errors(page, failed_requests=True)
    scripts = []
    page.on("response", lambda r: scripts.append(r) if "/plotly/" in r.url else None)

    charts = _open(page, board + CUP)
    assert len(scripts[0].body()) < 2_000_000  # our 1.2 MB build, not the full 4.8 MB
    assert len(charts) == 3 and page_width(page) <= width
    first = page.evaluate(FIRST_LANGUAGE)
    if width == 1366:  # on the first screen, inside the table's frame, nothing scrolled
        assert first["label"] == "ar" and first["right"] <= first["frame"] <= width and first["bottom"] < 768
    else:  # the scores scroll inside the table, the team column stays
        team = page.locator("table.leaderboard tbody tr td:nth-child(2)").first
        page.evaluate("document.querySelector('.leaderboard-wrap').scrollLeft = 600")
        assert page.evaluate("document.querySelector('.leaderboard-wrap').scrollLeft") > 0
        frame = page.locator(".leaderboard-wrap").bounding_box()
        assert abs(team.bounding_box()["x"] - frame["x"]) < 1  # held at the frame's left edge
    assert [c["title"] for c in charts if c["xtick"]["overlaps"] or c["ytick"]["overlaps"]] == []
    assert page.evaluate(TITLE_CLEAR) == []

    charts = _open(page, board + CLIR)
    bars = next(c for c in charts if c["title"].startswith("nDCG@10 per group"))
    assert bars["xtick"]["count"] == 9  # the source languages' averages and M.Avg, not 72 pairs
    assert [c["title"] for c in charts if c["xtick"]["overlaps"] or c["ytick"]["overlaps"]] == []
    assert page.evaluate(TITLE_CLEAR) == []
    assert page_width(page) <= width
    chart = page.locator(".js-plotly-plot").nth(charts.index(bars))  # by place: its title changes
    chart.locator(".updatemenu-header").click()
    chart.locator(".updatemenu-dropdown-button", has_text="from ja").click()
    page.wait_for_function("[...document.querySelectorAll('.js-plotly-plot')].some((c) => c.data[0].x[0] === 'ar')")
    assert chart.locator(".xtick text").evaluate_all("ts => ts.map((t) => t.textContent)") == [
        "ar", "de", "en", "es", "fr", "ru", "zh", "multi"]  # ja's pairs by target
    assert chart.locator(".gtitle").text_content().startswith("nDCG@10 per subset")
    assert page.evaluate(TITLE_CLEAR) == []

    if width == 390:  # a tap shows no mode bar over a title
        for plot in page.locator(".js-plotly-plot").all():
            plot.click(position={"x": 150, "y": 200})
            assert plot.locator(".modebar").count() == 0 or not plot.locator(".modebar").is_visible()
    assert {r.url.rsplit("/", 1)[-1] for r in scripts} == {PLOTLY.rsplit("/", 1)[-1]}
    assert errors == []
