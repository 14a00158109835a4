"""The compare page's chart (plotly, imported lazily) and a per-topic report's (a plain dict:
thousands of topics), both written by cupboard/charts.py."""


def difference_figure(rows: list[dict], *, metric: str, names: tuple[str, str]):
    """A minus B per subset on `metric` (rows of submissions.comparison), solid where the
    randomization test finds the difference significant at 0.05, hatched where it does not."""
    import plotly.graph_objects as go

    rows = [r for r in rows if r["metric"] == metric and "problem" not in r]
    significant = [r["p_randomization"] < 0.05 for r in rows]
    figure = go.Figure(go.Bar(
        x=[r["subset"].code for r in rows], y=[r["difference"] for r in rows],
        marker_color=["#2a6fdb" if s else "#9aa7b8" for s in significant],
        marker_pattern_shape=["" if s else "/" for s in significant],
        customdata=[f"{r['p_randomization']:.4f}" for r in rows],
        hovertemplate="%{x}: %{y:+.4f} (p = %{customdata})<extra></extra>"))
    figure.update_layout(title=f"{metric}: {names[0]} minus {names[1]} (solid: p < 0.05)",
                         yaxis_title=f"difference in {metric}", margin={"t": 50, "b": 40})
    return figure


def topic_figure(report, *, decimals: int) -> dict:
    """A run's per-topic report (submissions.topic_reports.TopicReport) on one measure: per
    topic, the range of all runs from worst to best as a grey bar, their median as a tick, and
    the run's value as a dot (blue above the median, red below), topics in the report's order
    (largest gain first). Hundreds of topics make a curve read at a glance, so their names
    are left to the hover there; a few dozen are labelled."""
    rows, many = report.rows, len(report.rows) > 40
    topics = [row.topic for row in rows]
    size = 8 if len(rows) <= 50 else 5 if len(rows) <= 300 else 3
    value = f".{decimals}f"
    colours = ["#2a6fdb" if r.difference > 0 else "#c9302c" if r.difference < 0 else "#555" for r in rows]
    span = {"type": "bar", "name": f"worst to best of {report.runs} runs", "x": topics,
            "base": [r.worst for r in rows], "y": [r.best - r.worst for r in rows], "marker": {"color": "#c9d3e0"},
            "customdata": [[r.best, r.worst] for r in rows],
            "hovertemplate": f"best %{{customdata[0]:{value}}}, worst %{{customdata[1]:{value}}}<extra></extra>"}
    median = {"type": "scatter", "mode": "markers", "name": "median", "x": topics, "y": [r.median for r in rows],
              "marker": {"symbol": "line-ew-open", "size": size + (1 if many else 6), "color": "#222",
                         "line": {"width": 2}},
              "hovertemplate": f"median %{{y:{value}}}<extra></extra>"}
    run = {"type": "scatter", "mode": "markers", "name": "this run", "x": topics, "y": [r.value for r in rows],
           "marker": {"size": size, "color": colours}, "customdata": [r.difference for r in rows],
           "hovertemplate": f"topic %{{x}}: %{{y:{value}}} (%{{customdata:+{value}}} to the median)<extra></extra>"}
    axis = {"type": "category", "showticklabels": not many, "automargin": True,
            "title": {"text": f"{len(rows)} topics, largest gain over the median first"}}
    return {"data": [span, median, run], "layout": {
        "title": {"text": f"{report.metric} per topic, {report.subset.code}"},
        "xaxis": axis, "yaxis": {"title": {"text": report.metric}, "rangemode": "tozero"},
        "bargap": 0.1 if many else 0.4, "hovermode": "x", "margin": {"t": 50, "b": 40}}}
