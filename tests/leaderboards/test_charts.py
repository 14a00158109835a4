"""The leaderboard page's figures are plain dicts written with `json` (graph_objects validated
every cell and took most of an uncached page's time): each must be valid plotly and hold
exactly what the graph_objects version wrote, template included, so the page looks the same.
The `_go_*` builders below are that version, kept as the expectation."""
from __future__ import annotations

import json
import math
import sys
from datetime import datetime, timedelta, timezone

import plotly.graph_objects as go
import plotly.io as pio
import pytest

from cupboard.charts import as_html, default_template, figure_json, plain
from cupboard.judging.charts import judged_figure
from cupboard.leaderboards import charts
from cupboard.leaderboards.charts import (
    bands_figure,
    bar_hover,
    bars_figure,
    cell_value,
    heatmap_figure,
    history_figures,
    leaderboard_charts,
    pair_axes,
    team_language_figure,
)
from cupboard.leaderboards.selectors import History, HistoryPoint
from tests.leaderboards.synthetic import METRIC, synthetic_board


def _go_bars(board, metric, top=charts.TOP_TEAMS):
    columns = board.subset_columns
    intervals = board.bands is not None and metric == board.primary_metric
    figure = go.Figure()
    for entry in charts._charted_entries(board, top):
        values = [entry.cell(c, metric) for c in columns]
        figure.add_trace(go.Bar(
            name=charts._name(entry), x=[c.label for c in columns], y=values,
            error_y=charts._error_bars(entry, [c.key for c in columns], values) if intervals else None,
            marker_pattern_shape="/" if entry.is_baseline else "", hovertemplate=bar_hover(board.decimals)))
    title = f"{metric} per subset" + (f" ({board.bands.confidence}% intervals)" if intervals else "")
    figure.update_layout(barmode="group", title=title, yaxis_title=metric,
                         legend_title_text="Top teams and baselines", margin={"t": 50, "b": 40})
    return figure


def _go_bands(board, metric, top=charts.BAND_TEAMS):
    if board.bands is None or metric != board.primary_metric:
        return None
    average = board.average_columns[-1]
    entries = [e for e in charts._charted_entries(board, top) if e.overall is not None]
    values = [e.cell(average, metric) for e in entries]
    bars = [charts._error_bars(e, [average.key], [v]) for e, v in zip(entries, values, strict=True)]
    names = [charts._name(e) for e in entries]
    figure = go.Figure(go.Bar(
        orientation="h", y=names, x=values,
        error_x={"type": "data", "symmetric": False, "thickness": 1, "array": [b["array"][0] for b in bars],
                 "arrayminus": [b["arrayminus"][0] for b in bars]},
        marker_color=["#9aa7b8" if e.is_baseline else charts.TIER_COLOURS[(e.overall.tier - 1) % 2] for e in entries],
        marker_pattern_shape=["/" if e.is_baseline else "" for e in entries], marker_pattern_fgcolor="#4a5568",
        customdata=["unranked" if e.is_baseline else f"band {e.overall.band}, tier {e.overall.tier}" for e in entries],
        hovertemplate=f"%{{y}}: %{{x:.{board.decimals}f}} (%{{customdata}})<extra></extra>"))
    figure.update_layout(title=f"{metric} {average.label} with {board.bands.confidence}% intervals, by tier",
                         xaxis_title=f"{metric} {average.label}", yaxis_autorange="reversed", yaxis_automargin=True,
                         yaxis_tickvals=names, yaxis_ticktext=[charts._short(n) for n in names],
                         height=max(300, 140 + 24 * len(entries)), margin={"t": 50, "l": 10})
    return figure


def _go_team_language(board, metric):
    columns = [c for c in board.subset_columns if c.kind != "pair"]
    entries = board.entries
    figure = go.Figure(go.Heatmap(
        z=[[entry.cell(c, metric) for c in columns] for entry in entries], x=[c.label for c in columns],
        y=[charts._name(entry) for entry in entries], colorscale="Viridis", hoverongaps=False,
        texttemplate=cell_value(board.decimals) if len(columns) * len(entries) <= 400 else "",
        hovertemplate=f"%{{y}}<br>%{{x}}: {cell_value(board.decimals)}<extra></extra>"))
    names = [charts._name(entry) for entry in entries]
    figure.update_layout(title=f"{metric} per team and subset", yaxis_autorange="reversed", xaxis_side="top",
                         height=160 + 24 * len(entries), margin={"t": 90, "l": 10}, yaxis_automargin=True,
                         xaxis_dtick=1, yaxis_dtick=1, yaxis_tickvals=names,
                         yaxis_ticktext=[n if len(n) <= 28 else n[:27] + "…" for n in names])
    return figure


def _go_pairs(board, metric, top=charts.HEATMAP_TEAMS):
    pairs = [c for c in board.subset_columns if c.kind == "pair"]
    if not pairs:
        return None
    entries = [e for e in board.entries if not e.is_baseline][:top]
    sources, targets = pair_axes(pairs)

    def grid(entry):
        z = [[None] * len(targets) for _ in sources]
        for column in pairs:
            source, _, target = column.key.partition("-")
            z[sources.index(source)][targets.index(target)] = entry.cell(column, metric)
        return z

    figure = go.Figure(go.Heatmap(z=grid(entries[0]), x=targets, y=sources, colorscale="Viridis",
                                  colorbar_title=metric, texttemplate=cell_value(board.decimals),
                                  hovertemplate=f"%{{y}} → %{{x}}: {cell_value(board.decimals)}<extra></extra>"))
    figure.update_layout(title=f"{metric} by source and target", xaxis_title="target",
                         yaxis_title="source", yaxis_autorange="reversed", margin={"t": 100})
    buttons = [{"label": charts._short(charts._name(e), 32), "method": "restyle", "args": [{"z": [grid(e)]}]}
               for e in entries]
    figure.update_layout(updatemenus=[{"buttons": buttons, "x": 0, "xanchor": "left", "y": 1.02, "yanchor": "bottom"}])
    return figure


BOARDS = {"500 rows, 18 languages, bands": dict(rows=500),
          "12 rows, 18 languages and 30 pairs, bands": dict(rows=12, pairs=30),
          "8 rows, 3 languages and 4 pairs, cell values written, no bands": dict(rows=8, languages=3, pairs=4,
                                                                                 bands=False)}
FIGURES = [(bars_figure, _go_bars), (bands_figure, _go_bands), (team_language_figure, _go_team_language),
           (heatmap_figure, _go_pairs)]
# Bars of more than MAX_BAR_GROUPS subsets come in parts (test_it_shows_many_subsets_a_part_at_a_time).
FLAT = [pytest.param(board, build, expected, id=f"{build.__name__}-{name}") for build, expected in FIGURES
        for name, board in BOARDS.items()
        if build is not bars_figure or board.get("languages", 18) + board.get("pairs", 0) <= charts.MAX_BAR_GROUPS]


@pytest.mark.parametrize("board, build, expected", FLAT)
def test_each_figure_is_valid_plotly_and_what_graph_objects_wrote(board, build, expected):
    board = synthetic_board(**board)
    figure, old = build(board, metric=METRIC), expected(board, METRIC)

    assert (figure is None) == (old is None)
    if figure is not None:
        validated = go.Figure(figure)  # raises on any property plotly does not know or refuses
        assert validated.to_plotly_json() == old.to_plotly_json()
        # As written: template and all, participants' strings made plain text (test_chart_markup.py).
        assert json.loads(figure_json(figure)) == plain(json.loads(old.to_json()))


def _go_history(history):
    teams: dict[str, list] = {}
    for point in history.points:
        teams.setdefault(point.team, []).append(point)
    value_hover = f"%{{fullData.name}}<br>%{{x|%Y-%m-%d %H:%M}} UTC: %{{y:.{history.decimals}f}}<extra></extra>"
    values, ranks = go.Figure(), go.Figure()
    for team, points in teams.items():
        times = [p.at for p in points]
        values.add_trace(go.Scatter(name=team, x=times, y=[p.value for p in points], mode="lines+markers",
                                    line_shape="hv", hovertemplate=value_hover))
        ranks.add_trace(go.Scatter(name=team, x=times, y=[p.rank for p in points], mode="lines+markers",
                                   line_shape="hv", hovertemplate="%{fullData.name}<br>%{x|%Y-%m-%d %H:%M} UTC: "
                                                                  "rank %{y}<extra></extra>"))
    values.update_layout(title=f"{history.metric} (Avg) of each team over time", yaxis_title=history.metric,
                         xaxis_title="UTC", margin={"t": 50, "b": 40})
    ranks.update_layout(title="Rank of each team over time", yaxis_title="rank", xaxis_title="UTC",
                        yaxis_autorange="reversed", yaxis_dtick=1, margin={"t": 50, "b": 40})
    return [values, ranks]


def test_the_history_figures_are_what_graph_objects_wrote_built_without_plotly(monkeypatch):
    """The history page's two charts: a trace per team each (1,000 for the bench's 500 teams),
    which graph_objects validated on every render of the page."""
    t0 = datetime(2026, 11, 2, 9, 30, 15, 250000, tzinfo=timezone.utc)
    points = [HistoryPoint(at=t0, team="Team <1> & co", rank=1, value=0.4),
              HistoryPoint(at=t0 + timedelta(hours=1), team="فريق", rank=1, value=0.5),
              HistoryPoint(at=t0 + timedelta(hours=1), team="Team <1> & co", rank=2, value=None)]
    history = History(phase=None, visible=True, metric=METRIC, decimals=4, points=points)
    expected = _go_history(history)
    monkeypatch.setitem(sys.modules, "plotly.graph_objects", None)  # importing it now raises
    figures = history_figures(history)
    monkeypatch.undo()

    assert len(figures) == 2
    for figure, old in zip(figures, expected, strict=True):
        assert json.loads(go.Figure(figure).to_json()) == json.loads(old.to_json())  # valid, the same
        assert json.loads(figure_json(figure)) == plain(json.loads(old.to_json()))
    assert history_figures(History(phase=None, visible=True)) == []


def _go_judged(table, decimals):
    codes = [s.code for s in table["subsets"]]
    rows = table["rows"]
    figure = go.Figure(go.Heatmap(
        z=[[row["values"].get(code) for code in codes] for row in rows], x=codes, y=[row["label"] for row in rows],
        zmin=0, zmax=1, colorscale="RdYlGn", colorbar_title="Judged@10", texttemplate=cell_value(decimals),
        hovertemplate=f"%{{y}} on %{{x}}: {cell_value(decimals)}<extra></extra>"))
    figure.update_layout(title="Judged@10: share of each run's top 10 that is judged", xaxis_side="top",
                         xaxis_dtick=1, yaxis_dtick=1, yaxis_autorange="reversed",
                         height=max(300, 60 + 28 * len(rows)), margin={"t": 90, "l": 10})
    return figure


def test_the_judged_heatmap_is_what_graph_objects_wrote_built_without_plotly(monkeypatch):
    """The public Judged@10 page's heatmap: a cell per run and language (9,000 on the bench's
    board), each validated by graph_objects on every render of the page."""
    subsets = [type("S", (), {"code": code})() for code in ("ar", "fa", "sw")]
    rows = [{"label": "1. Team <1> & co", "values": {"ar": 0.5, "sw": 0.25}}, {"label": "2. فريق", "values": {}},
            {"label": "Baseline: BM25", "values": {"ar": 1.0, "fa": 0.0, "sw": 0.75}}]
    table = {"subsets": subsets, "rows": rows}
    expected = _go_judged(table, 2)
    monkeypatch.setitem(sys.modules, "plotly.graph_objects", None)  # importing it now raises
    figure = judged_figure(table, decimals=2)
    monkeypatch.undo()

    assert json.loads(go.Figure(figure).to_json()) == json.loads(expected.to_json())  # valid, the same
    assert json.loads(figure_json(figure)) == plain(json.loads(expected.to_json()))
    assert judged_figure({"subsets": subsets, "rows": []}, decimals=2) is None


def test_it_shows_many_subsets_a_part_at_a_time():
    """18 languages and 30 pairs (ar-bn ... bn-ko): the languages, then each source's pairs by
    their target, picked from a menu; the chart opens on the first part."""
    board = synthetic_board(rows=12, pairs=30)
    figure = bars_figure(board, metric=METRIC)
    go.Figure(figure)  # valid plotly
    entries = charts._charted_entries(board, charts.TOP_TEAMS)
    columns = {c.key: c for c in board.subset_columns}
    buttons = figure["layout"]["updatemenus"][0]["buttons"]

    assert [b["label"] for b in buttons] == ["ar to zh", "from ar", "from bn"]
    parts = [[c.key for c in board.subset_columns[:18]], [c.key for c in board.subset_columns[18:35]],
             [c.key for c in board.subset_columns[35:]]]
    assert [b["args"][0]["x"][0] for b in buttons] == [parts[0], [k[3:] for k in parts[1]], [k[3:] for k in parts[2]]]
    for button, keys in zip(buttons, parts, strict=True):
        update = button["args"][0]
        assert update["y"] == [[e.cell(columns[k], METRIC) for k in keys] for e in entries]
        plus = [[None if e.cell(columns[k], METRIC) is None else max(e.standings[k].ci_high - e.cell(columns[k], METRIC), 0)
                 for k in keys] for e in entries]
        assert update["error_y.array"] == plus
    first = buttons[0]["args"][0]
    assert [t["x"] for t in figure["data"]] == first["x"] and [t["y"] for t in figure["data"]] == first["y"]
    assert [t["error_y"]["array"] for t in figure["data"]] == first["error_y.array"]


def test_a_board_of_few_subsets_has_no_menu():
    assert "updatemenus" not in bars_figure(synthetic_board(rows=12, pairs=6), metric=METRIC)["layout"]


def test_the_template_is_plotlys_default():
    assert json.loads(default_template()) == pio.templates[pio.templates.default].to_plotly_json()


def test_not_a_number_is_written_as_null():
    board = synthetic_board(rows=3, languages=2)
    board.entries[0].values["ar"] = {METRIC: math.nan}
    board.entries[1].values["ar"] = {METRIC: math.inf}

    def refuse(constant):
        raise ValueError(constant)

    written = json.loads(figure_json(bars_figure(board, metric=METRIC)), parse_constant=refuse)
    assert [trace["y"][0] for trace in written["data"][:2]] == [None, None]


def test_the_page_builds_its_charts_without_plotly(monkeypatch):
    board = synthetic_board(rows=20, pairs=4)
    monkeypatch.setitem(sys.modules, "plotly.graph_objects", None)  # importing it now raises
    monkeypatch.setitem(sys.modules, "plotly.io", None)

    assert len(leaderboard_charts(board, metric=METRIC)) == 4


def test_names_cannot_break_out_of_the_script_element():
    board = synthetic_board(rows=3, languages=2)  # teams are named "Team <1> & co"
    for html in leaderboard_charts(board, metric=METRIC) + as_html([_go_bars(board, METRIC)]):
        data = html.removeprefix('<div class="plotly-chart"><script type="application/json">')
        data = data.removesuffix("</script></div>")
        assert "<" not in data and "&" not in data and "\\u0026lt;1\\u0026gt; \\u0026amp; co" in data.lower()
        assert "1. Team &lt;1&gt; &amp; co: run-1" in str(json.loads(data)["data"])  # plotly shows "<1> &"
