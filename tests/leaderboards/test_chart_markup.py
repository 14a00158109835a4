"""Participants' strings are text in every chart (issue 24: a team named with an `<a href>`
drew a live link in the bar chart, legend, heatmap, history and Judged@10 charts, since
plotly draws a subset of HTML in every text it shows). Markup is planted in every field a
participant writes (team name, method name, a baseline's name, run metadata) and no chart's
data holds a tag from it; in chromium, no element comes from it."""
from __future__ import annotations

import json
import re

import pytest
from django.urls import reverse

from cupboard.charts import as_html
from cupboard.judging.charts import changes_figure, judged_figure, unique_figure
from cupboard.judging.standings import Change
from cupboard.leaderboards.services import leaderboard_refresh
from tests.leaderboards.test_rank_bands import scored_with_queries
from tests.personas import client_for

pytestmark = pytest.mark.django_db

TEAM = 'Harbor <a href="https://evil.example/team">seals</a>'
METHOD = '<b>bold</b><a href="https://evil.example/method">m</a><br>'
BASELINE = '<a href="https://evil.example/baseline">BM25</a>'
_CHART = re.compile(r'<div class="plotly-chart"><script type="application/json">(.*?)</script>', re.S)
# Our own plotly markup: a hover's `<br>` and `<extra>`; every other string may be a participant's.
_OURS = {"hovertemplate", "texttemplate"}


def _strings(value, key=None):
    """(key, string) of every string in a figure."""
    if isinstance(value, str):
        yield key, value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from _strings(v, k)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v, key)


def tags_in(html: str) -> tuple[int, list[str]]:
    """How many charts `html` holds, and every string of theirs (but our templates) with a tag."""
    figures = [json.loads(data) for data in _CHART.findall(html)]
    return len(figures), [s for figure in figures for key, s in _strings(figure) if key not in _OURS and "<" in s]


@pytest.fixture
def planted(cast):
    """Dev: team A named with a link, its runs' method and metadata with markup, a baseline too."""
    cast.team_a.name = TEAM
    cast.team_a.save()
    phase = cast.competition.phases.get(slug="dev")
    ours = scored_with_queries(phase, team=cast.team_a, method=METHOD, levels={"sw": 0.7, "te": 0.6}, seed=1)
    ours.metadata = {"description": METHOD}
    ours.save()
    other = scored_with_queries(phase, team=cast.team_b, method="plain", levels={"sw": 0.5, "te": 0.5}, seed=2)
    scored_with_queries(phase, method=BASELINE, levels={"sw": 0.3, "te": 0.3}, seed=3)
    leaderboard_refresh(phase=phase)
    return phase, ours, other


def test_no_chart_of_any_page_holds_a_participant_s_tag(cast, planted):
    phase, ours, other = planted
    args = [phase.competition.slug, phase.slug]
    pages = {
        "leaderboard": (cast.anonymous, reverse("leaderboards:phase", args=args)),
        "history": (cast.anonymous, reverse("leaderboards:history", args=args)),
        "submission": (cast.participant, reverse("submissions:detail", args=[ours.pk])),
        "organizer's submission": (cast.organizer, reverse("submissions:detail", args=[other.pk])),
        "comparison": (cast.organizer, reverse("submissions:compare", args=[ours.pk]) + f"?with={other.pk}"),
    }
    for name, (user, url) in pages.items():
        response = client_for(user).get(url)
        assert response.status_code == 200, name
        count, tagged = tags_in(response.content.decode())
        assert count and not tagged, (name, tagged)
    # Not vacuous: the names are there, as text plotly shows as typed.
    html = client_for(cast.anonymous).get(reverse("leaderboards:phase", args=args)).content.decode()
    assert "Harbor \\u0026lt;a href=\\\"https://evil.example/team\\\"\\u0026gt;seals" in html


def test_the_judging_charts_hold_no_participant_s_tag():
    figures = [
        judged_figure({"subsets": [type("S", (), {"code": "sw"})()],
                       "rows": [{"label": f"1. {TEAM}", "values": {"sw": 0.5}},
                                {"label": f"Baseline: {BASELINE}", "values": {"sw": 0.4}}]}, decimals=3),
        changes_figure([Change(name=TEAM, is_baseline=False, before=0.4, after=0.5, rank_before=1, rank_after=1),
                        Change(name=f"Baseline: {BASELINE}", is_baseline=True, before=0.3, after=0.3,
                               rank_before=None, rank_after=None)], metric="nDCG@10", labels=("v1", "v2")),
        unique_figure({"codes": ["sw"], "rows": [{"group": TEAM, "unique": 3, "cells": [{"unique": 3}]}]}),
    ]
    count, tagged = tags_in("".join(as_html(figures)))
    assert count == 3 and not tagged


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_in_chromium_the_charts_draw_the_names_as_text(live_server, planted):
    from tests.browser import chromium_page, watch_errors

    phase, _, _ = planted
    url = live_server.url + reverse("leaderboards:phase", args=[phase.competition.slug, phase.slug])
    with chromium_page() as page:
        errors = watch_errors(page)
        page.goto(url)
        page.wait_for_selector(".js-plotly-plot .main-svg")
        assert page.locator(".js-plotly-plot").count() >= 3
        assert page.locator(".js-plotly-plot svg a").count() == 0
        texts = page.eval_on_selector_all(".js-plotly-plot svg text", "nodes => nodes.map(n => n.textContent)")
        assert any('Harbor <a href="https://evil.example/team">seals</a>' in t for t in texts)
        assert any("<b>bold</b>" in t for t in texts)  # as typed, not bold
        assert page.locator('.js-plotly-plot svg tspan[style*="bold"]').count() == 0
        assert not errors, errors
