"""Charts of the judging cycle, from what the selectors already chose for an organizer:
Judged@10 per row and subset (a heatmap: 18 languages x 20 rows are unreadable as bars) and
a release's before/after per team. The public Judged@10 page's heatmap is a plain dict, as the
leaderboard's charts (leaderboards/charts.py); the organizers' charts are graph_objects Figures,
plotly imported lazily."""
from __future__ import annotations

from cupboard.leaderboards.charts import cell_value

from .models import JUDGED_METRIC
from .standings import Change

# plotly.py's "RdYlGn" as graph_objects wrote it out (plotly.js's own has other stops).
RD_YL_GN = [[i / 10, colour] for i, colour in enumerate(
    ("rgb(165,0,38)", "rgb(215,48,39)", "rgb(244,109,67)", "rgb(253,174,97)", "rgb(254,224,139)", "rgb(255,255,191)",
     "rgb(217,239,139)", "rgb(166,217,106)", "rgb(102,189,99)", "rgb(26,152,80)", "rgb(0,104,55)"))]


def judged_figure(table: dict, *, decimals: int) -> dict | None:
    """Rows (counted runs and baselines) x subsets, coloured by Judged@10; None when empty. A
    plain dict, as the leaderboard's heatmap: graph_objects validated each of its cells (500 rows
    x 18 languages on the Cup's board) on every render of the public Judged@10 page."""
    codes = [s.code for s in table["subsets"]]
    rows = table["rows"]
    if not codes or not rows:
        return None
    trace = {"type": "heatmap", "z": [[row["values"].get(code) for code in codes] for row in rows], "x": codes,
             "y": [row["label"] for row in rows], "zmin": 0, "zmax": 1, "colorscale": RD_YL_GN,
             "colorbar": {"title": {"text": JUDGED_METRIC}}, "texttemplate": cell_value(decimals),
             "hovertemplate": f"%{{y}} on %{{x}}: {cell_value(decimals)}<extra></extra>"}
    # Every language and run named (dtick 1), not every other one.
    layout = {"title": {"text": f"{JUDGED_METRIC}: share of each run's top 10 that is judged"},
              "xaxis": {"side": "top", "dtick": 1}, "yaxis": {"dtick": 1, "autorange": "reversed"},
              "height": max(300, 60 + 28 * len(rows)), "margin": {"t": 90, "l": 10}}
    return {"data": [trace], "layout": layout}


def changes_figure(changes: list[Change], *, metric: str, labels: tuple[str, str]):
    """Each team's value before and after, as paired bars in the order of the table."""
    import plotly.graph_objects as go

    shown = [c for c in changes if c.before is not None or c.after is not None]
    if not shown:
        return None
    names = [c.name for c in shown]
    figure = go.Figure([
        go.Bar(name=labels[0], x=names, y=[c.before for c in shown], marker_pattern_shape="/",
               hovertemplate="%{x}: %{y:.4f}<extra>%{fullData.name}</extra>"),
        go.Bar(name=labels[1], x=names, y=[c.after for c in shown],
               hovertemplate="%{x}: %{y:.4f}<extra>%{fullData.name}</extra>")])
    figure.update_layout(barmode="group", title=f"{metric} before and after", yaxis_title=metric,
                         margin={"t": 50, "b": 40})
    return figure


def unique_figure(table: dict | None):
    """Unique relevant documents per team, stacked by language (the pool-contribution table
    of views._contribution_table); None when there is none."""
    import plotly.graph_objects as go

    if not table or not any(row["unique"] for row in table["rows"]):
        return None
    teams = [row["group"] for row in table["rows"]]
    figure = go.Figure([go.Bar(name=code, x=teams, y=[(row["cells"][i] or {}).get("unique", 0) for row in table["rows"]],
                               hovertemplate=f"%{{x}} in {code}: %{{y}}<extra></extra>")
                        for i, code in enumerate(table["codes"])])
    figure.update_layout(barmode="stack", title="Relevant documents only this team's runs retrieved",
                         yaxis_title="unique relevant", legend_title_text="language", margin={"t": 50, "b": 40})
    return figure


def progress_figure(progress: list[dict], *, title: str):
    """Per task (language and assessor): passages judged and still to judge, stacked bars."""
    import plotly.graph_objects as go
    from django.utils.html import escape

    if not progress:
        return None
    names = [f"{row['code']} · {escape(row['assessor'])}" for row in progress]
    figure = go.Figure([
        go.Bar(name="judged", x=names, y=[row["done"] for row in progress], hovertemplate="%{x}: %{y}<extra>judged</extra>"),
        go.Bar(name="to judge", x=names, y=[row["total"] - row["done"] for row in progress],
               hovertemplate="%{x}: %{y}<extra>to judge</extra>")])
    figure.update_layout(barmode="stack", title=title, height=320, margin={"t": 60, "l": 10},
                         yaxis_title="passages", xaxis_type="category")
    return figure
