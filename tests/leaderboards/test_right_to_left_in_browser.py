"""Right-to-left text where cupboard hosts Arabic and Persian (issue 33, item 13): a team or
method named in Arabic sits in its leaderboard cells isolated (<bdi>), laid out right to left
without turning the row, and the judging page's query and passage take their own direction
(dir="auto"). The history, a run's heading and the organizers' teams page keep the numbers
written beside such a name where they are written; so do the charts' labels and the audit
log's summaries, plain text where no <bdi> can go, through Unicode's isolates (cupboard/bidi.py).
Checked in chromium at 1366 and 390 px."""
import json
import re
from datetime import timedelta

import pytest
import time_machine
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from cupboard.bidi import FSI, PDI
from cupboard.leaderboards.services import leaderboard_refresh, leaderboard_update
from cupboard.submissions.models import Submission
from cupboard.submissions.services import submission_disqualify
from cupboard.teams.models import Team
from tests.browser import chromium, page_width, watch_errors
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
        assert page_width(page) <= width
        assert errors == []


def _figures(html: str) -> list[dict]:
    """The plotly figures a page holds as JSON (cupboard/charts.py's as_html)."""
    return [json.loads(found) for found in re.findall(r'<script type="application/json">(.*?)</script>', html, re.S)]


def _disqualified(cast) -> None:
    """A second, weaker run of the Arabic team disqualified (the first stays on the board): the audit
    log's public line names it "TEAM #2: METHOD"."""
    phase = cast.competition.phases.get(slug="dev")
    second = make_scored(phase, team=Team.objects.get(name=TEAM), method=METHOD, scores=ndcg(sw=0.1, te=0.1))
    submission_disqualify(submission=second, actor=cast.organizer, reason="copied run")


@pytest.mark.django_db
def test_chart_labels_and_audit_summaries_isolate_names():
    cast, url = _board()
    bars = [trace["name"] for figure in _figures(Client().get(url).content.decode()) for trace in figure["data"]
            if trace.get("type") == "bar" and "name" in trace]
    assert f"1. {FSI}{TEAM}{PDI}: {FSI}{METHOD}{PDI}" in bars, bars
    assert "2. Team A: bm25 (ltr)" in bars, "a left-to-right name is left as it is"
    _disqualified(cast)
    organizer = Client()
    organizer.force_login(cast.organizer)
    log = organizer.get(f"/c/{cast.competition.slug}/audit/").content.decode()
    assert f"Disqualified {FSI}{TEAM}{PDI} #2: {FSI}{METHOD}{PDI} in Development: copied run" in log


# The box of the first text `needle` inside the element: where the browser put those characters.
TEXT_BOX = """(element, needle) => {
  const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const at = node.data.indexOf(needle);
    if (at < 0) continue;
    const range = document.createRange();
    range.setStart(node, at);
    range.setEnd(node, at + needle.length);
    const box = range.getBoundingClientRect();
    return {left: box.left, right: box.right, top: box.top};
  }
  return null;
}"""


def _history():
    """The board of `_board`, the Arabic team's run improved an hour after it was made: the history shows
    its move "TEAM: 0.650 -> 0.800 nDCG@10", numbers right after the name"""
    with time_machine.travel(timezone.now() - timedelta(hours=1), tick=False):
        cast, url = _board()
    phase = cast.competition.phases.get(slug="dev")
    leaderboard_update(phase=phase, submission=make_scored(
        phase, team=Team.objects.get(name=TEAM), method=METHOD, scores=ndcg(sw=0.8, te=0.8)))
    return cast, url


def _organizer_cookie(cast, live_server) -> dict:
    """The organizer's session for the browser (made before it starts: no database calls after)."""
    organizer = Client()
    organizer.force_login(cast.organizer)
    return {"name": "sessionid", "value": organizer.cookies["sessionid"].value, "url": live_server.url}


def _page(browser, width: int, cookie: dict):
    """A page at `width` with the organizer's session, and the list its errors fill."""
    context = browser.new_context(viewport={"width": width, "height": 900})
    context.add_cookies([cookie])
    page = context.new_page()
    return page, watch_errors(page, failed_requests=True)


def _edges(box: dict) -> dict:
    """A Playwright bounding box as TEXT_BOX gives one."""
    return {"left": box["x"], "right": box["x"] + box["width"], "top": box["y"]}


def _before(first: dict, then: dict) -> bool:
    """`then` is drawn after `first` in a left-to-right line: right of it, or on a line below."""
    return then["top"] > first["top"] + 5 or first["right"] <= then["left"] + 1


def _box(page, selector: str, needle: str) -> dict:
    box = page.locator(selector).first.evaluate(TEXT_BOX, needle)
    assert box is not None, f"{needle!r} not in {page.locator(selector).first.inner_text()!r}"
    return box


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("width", [1366, 390])
def test_numbers_beside_a_right_to_left_name_stay_where_they_are_written(live_server, width):
    """Without isolation the digits and punctuation after an Arabic name join its right-to-left
    run: the history's '0.700 -> 0.800' or a run's '#1' were drawn left of the name."""
    cast, url = _history()
    submission = Submission.objects.filter(method_name=METHOD).order_by("number").first()
    cookie = _organizer_cookie(cast, live_server)
    with chromium() as browser:
        page, errors = _page(browser, width, cookie)

        assert page.goto(f"{live_server.url}{url}history/").status == 200
        move = ".history-moves li:has(bdi)"
        name = page.locator(move).first.locator("bdi")
        assert name.inner_text() == TEAM and name.evaluate("e => e.matches(':dir(rtl)')")
        assert page.locator(move).first.evaluate("e => e.matches(':dir(ltr)')")
        before = re.search(r": ([0-9.]+) → [0-9.]+ nDCG@10", page.locator(move).first.inner_text())[1]
        after = _box(page, move, f"{before} → ")  # the organizer's average counts the surprise language too
        assert _before(_edges(name.bounding_box()), after), "the scores moved left of the name"

        assert page.goto(live_server.url + submission.get_absolute_url()).status == 200
        team, method = (_edges(page.locator("h1 bdi").nth(i).bounding_box()) for i in (0, 1))
        number = _box(page, "h1", "#1:")
        assert _before(team, number) and _before(number, method), f"{team}, then {number}, then {method}"

        assert page.goto(f"{live_server.url}/c/{cast.competition.slug}/manage/teams/").status == 200
        row = page.locator("table.teams-overview tbody tr", has=page.locator("bdi", has_text=TEAM))
        assert row.locator("bdi").evaluate("e => e.matches(':dir(rtl)')") and row.evaluate("e => e.matches(':dir(ltr)')")
        lefts = [row.locator("td").nth(i).bounding_box()["x"] for i in range(row.locator("td").count())]
        assert lefts == sorted(lefts), "the row's cells turned"
        assert page_width(page) <= width
        assert errors == []


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("width", [1366, 390])
def test_a_chart_and_the_audit_log_keep_the_order_they_write(live_server, width):
    """A bar's name "1. TEAM: METHOD" and the audit line "Disqualified TEAM #2: METHOD in ...": without
    the isolates the colon, the rank's digits and the Persian method joined the Arabic team's run and
    the method was drawn left of the team."""
    cast, url = _board()
    _disqualified(cast)
    cookie = _organizer_cookie(cast, live_server)
    with chromium() as browser:
        page, errors = _page(browser, width, cookie)

        assert page.goto(live_server.url + url).status == 200
        legend = "g.legend text.legendtext:text-matches('^1\\. ')"
        page.locator(legend).first.wait_for()  # drawn by static/charts.js once plotly has loaded
        team, colon, method = (_box(page, legend, needle) for needle in (TEAM, ": ", METHOD))
        assert _before(team, colon) and _before(colon, method), f"{team}, then {colon}, then {method}"

        assert page.goto(f"{live_server.url}/c/{cast.competition.slug}/audit/").status == 200
        line = "table.audit tr:has-text('copied run') td:nth-child(3)"  # the summary
        # first words: the narrow cell may break a name over two lines, and a box of both is no place
        team, number, method = (_box(page, line, needle) for needle in (TEAM.split()[0], "#2:", METHOD.split()[0]))
        assert _before(team, number) and _before(number, method), f"{team}, then {number}, then {method}"
        assert page_width(page) <= width
        assert errors == []


def _in_chart(page: str, text: str) -> bool:
    """The chart's JSON holds `text` as written or with its non-ASCII escaped."""
    return text in page or json.dumps(text)[1:-1] in page


@pytest.mark.django_db
def test_a_runs_own_chart_isolates_its_names():
    """The run page's chart (and Compare's, which names runs the same way) labels it in plain text."""
    cast, _ = _board()
    submission = Submission.objects.get(method_name=METHOD)
    organizer = Client()
    organizer.force_login(cast.organizer)
    label = f"{FSI}{TEAM}{PDI} #1: {FSI}{METHOD}{PDI}"
    assert _in_chart(organizer.get(submission.get_absolute_url()).content.decode(), label)
