"""The compare page's chart (plotly, imported lazily; written by cupboard/charts.py)."""


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
