"""Plotly figures of a leaderboard, built from what `leaderboard_for` returned.

Charts take their data from the viewer's `Leaderboard` (already filtered and rounded), so
they can never show a column or a value the table hides.

The leaderboard page's figures are plain dicts in plotly's JSON schema (`{"data": [traces],
"layout": {...}}`), written with `json`: plotly.graph_objects validates every property and
every cell (a 500 x 18 heatmap included) and took most of an uncached page's time. What they
hold is what graph_objects wrote before, template included (tests/leaderboards/test_charts.py
checks both against graph_objects), and so are the history page's. The other pages' figures
(judging, a comparison) are still graph_objects Figures, imported lazily; `as_html`
(cupboard/charts.py) takes either.
"""
from __future__ import annotations

from cupboard.bidi import isolate
from cupboard.charts import as_html
from cupboard.leaderboards.selectors import Column, Entry, History, Leaderboard

TOP_TEAMS = 10
MAX_BAR_GROUPS = 24  # groups of bars one chart shows legibly (the Cup's 18 languages x 14 runs do)
PART_SUBSETS = 18  # subsets in one part of a board with more than MAX_BAR_GROUPS
HEATMAP_TEAMS = 5
BAND_TEAMS = 50
TIER_COLOURS = ("#2a6fdb", "#7f9cc9")  # alternate tiers, as the table's shading
# plotly.py's "Viridis" as it wrote it out (plotly.js's own "Viridis" has other stops).
VIRIDIS = [[i / 9, colour] for i, colour in enumerate(
    ("#440154", "#482878", "#3e4989", "#31688e", "#26828e", "#1f9e89", "#35b779", "#6ece58", "#b5de2b", "#fde725"))]


def bar_hover(decimals: int) -> str:
    """subset: value (to the competition's decimals), then the bar's series."""
    return f"%{{x}}: %{{y:.{decimals}f}}<extra>%{{fullData.name}}</extra>"


def cell_value(decimals: int) -> str:
    """A heatmap cell's value in plotly's template syntax, to the viewer's decimals."""
    return f"%{{z:.{decimals}f}}"


def _charted_entries(leaderboard: Leaderboard, top: int) -> list[Entry]:
    """The first `top` ranked rows shown (a filtered board keeps the whole board's ranks) and
    every baseline, in leaderboard order."""
    teams = {id(e) for e in [e for e in leaderboard.entries if e.rank is not None][:top]}
    return [e for e in leaderboard.entries if e.is_baseline or id(e) in teams]


def _name(entry: Entry) -> str:
    """A bar's name: the rank, then team and method each isolated (cupboard/bidi.py), so that an Arabic
    team does not draw its rank or the colon on its other side."""
    if entry.is_baseline:
        return f"{isolate(entry.method)} (baseline)"
    return f"{entry.rank}. {isolate(entry.team)}: {isolate(entry.method)}"


def _title(text: str) -> dict:
    """A title as plotly's schema nests it (`title="x"` in graph_objects)."""
    return {"title": {"text": text}}


def bar_parts(leaderboard: Leaderboard) -> list[tuple[str, list[Column], list[str]]]:
    """(menu label, columns, bar labels) of each view of the grouped bars, the first the one
    shown. Up to `MAX_BAR_GROUPS` subsets: one view, a bar group per subset. More (CLIRMatrix's
    72 pairs x 7 runs were 504 slivers): the groups' averages first, where there are groups
    (its 8 "ar.Avg" ...: 56 bars), then the subsets a part at a time (`_parts`)."""
    columns = leaderboard.subset_columns
    if len(columns) <= MAX_BAR_GROUPS:
        return [("", columns, [c.label for c in columns])]
    groups = leaderboard.average_columns[:-1]  # the last is Avg, which the bands chart draws
    overview = [("group averages", groups, [c.label for c in groups])] if len(groups) > 1 else []
    return overview + _parts(columns)


def bars_figure(leaderboard: Leaderboard, *, metric: str, top: int = TOP_TEAMS) -> dict:
    """Grouped bars: one group per subset column (language, test set, pair), one bar per top
    team and per baseline; on a board of many subsets a view at a time (`bar_parts`), chosen
    from a menu under the title."""
    bands = leaderboard.bands if metric == leaderboard.primary_metric else None  # intervals of the ranking metric
    parts = bar_parts(leaderboard)
    entries, hover = _charted_entries(leaderboard, top), bar_hover(leaderboard.decimals)
    shown = [_part_traces(entries, part, metric, bands is not None) for _, part, _ in parts]
    traces = [{"type": "bar", "name": _name(entry), "x": parts[0][2], "y": y,
               "marker": {"pattern": {"shape": "/" if entry.is_baseline else ""}}, "hovertemplate": hover}
              | ({"error_y": error} if error else {}) for entry, (y, error) in zip(entries, shown[0], strict=True)]
    intervals = f" ({bands.confidence}% intervals)" if bands is not None else ""
    titles = [f"{metric} per {'group' if all(c.is_average for c in part) else 'subset'}{intervals}"
              for _, part, _ in parts]
    layout = {"barmode": "group", **_title(titles[0]), "yaxis": _title(metric),
              "legend": _title("Top teams and baselines"), "margin": {"t": 50, "b": 40}}
    if len(parts) > 1:
        buttons = [{"label": label, "method": "update", "args": [_restyle(labels, part_traces), {"title.text": title}]}
                   for (label, _, labels), part_traces, title in zip(parts, shown, titles, strict=True)]
        # Under the title, on its own line, so that a phone's narrow chart has room for both.
        layout |= {"updatemenus": [{"buttons": buttons, "x": 0, "xanchor": "left", "y": 1.02, "yanchor": "bottom"}],
                   "margin": {"t": 100, "b": 40}}
    return {"data": traces, "layout": layout}


def _parts(columns: list[Column]) -> list[tuple[str, list[Column], list[str]]]:
    """(menu label, columns, bar labels) of each part of a board with many subsets: pairs
    ("src-tgt") by their source, labelled by their target; other subsets in runs of
    `PART_SUBSETS`, in column order."""
    pairs: dict[str, list[Column]] = {}
    others: list[Column] = []
    for column in columns:
        if column.kind == "pair" and "-" in column.key:
            pairs.setdefault(column.key.partition("-")[0], []).append(column)
        else:
            others.append(column)
    runs = [others[i:i + PART_SUBSETS] for i in range(0, len(others), PART_SUBSETS)]
    return ([(f"{run[0].label} to {run[-1].label}", run, [c.label for c in run]) for run in runs]
            + [(f"from {source}", part, [c.key.partition("-")[2] for c in part]) for source, part in pairs.items()])


def _part_traces(entries: list[Entry], columns: list[Column], metric: str, intervals: bool) -> list[tuple]:
    """Each entry's values on `columns`, with their error bars when `intervals`."""
    shown = []
    for entry in entries:
        values = [entry.cell(c, metric) for c in columns]
        shown.append((values, _error_bars(entry, [c.key for c in columns], values) if intervals else None))
    return shown


def _restyle(labels: list[str], part_traces: list[tuple]) -> dict:
    """plotly's restyle arguments that put one part in every trace (a list holds a value per trace)."""
    update = {"x": [labels] * len(part_traces), "y": [values for values, _ in part_traces]}
    if part_traces and part_traces[0][1] is not None:
        update["error_y.array"] = [error["array"] for _, error in part_traces]
        update["error_y.arrayminus"] = [error["arrayminus"] for _, error in part_traces]
    return update


def _error_bars(entry: Entry, keys: list[str], values: list[float | None]) -> dict:
    """Asymmetric error bars from the entry's bootstrap intervals (none where it has none)."""
    plus, minus = [], []
    for key, value in zip(keys, values, strict=True):
        s = entry.standings.get(key)
        plus.append(None if s is None or value is None else max(s.ci_high - value, 0.0))
        minus.append(None if s is None or value is None else max(value - s.ci_low, 0.0))
    return {"type": "data", "symmetric": False, "array": plus, "arrayminus": minus, "thickness": 1}


def bands_figure(leaderboard: Leaderboard, *, metric: str, top: int = BAND_TEAMS) -> dict | None:
    """The ranking average of the top teams and the baselines with their intervals, coloured by
    tier (the table's shading), the rank band in the hover. None without bands for `metric`.
    A bar a line, named on its left: slanted names under upright bars ran into each other on
    half a laptop's width."""
    if leaderboard.bands is None or metric != leaderboard.primary_metric:
        return None
    average = leaderboard.average_columns[-1]  # Avg: what the table ranks by
    entries = [e for e in _charted_entries(leaderboard, top) if e.overall is not None]
    if not entries:
        return None
    values = [e.cell(average, metric) for e in entries]
    bars = [_error_bars(e, [average.key], [v]) for e, v in zip(entries, values, strict=True)]
    names = [_name(e) for e in entries]
    trace = {
        "type": "bar", "orientation": "h", "y": names, "x": values,
        "error_x": {"type": "data", "symmetric": False, "thickness": 1, "array": [b["array"][0] for b in bars],
                    "arrayminus": [b["arrayminus"][0] for b in bars]},
        # The hatching's colour given (it was black). plotly 4.1.1 still logs 'Invalid color specifier:
        # Array(n)' for a pattern beside per-bar colours, whatever the pattern's colours: harmless.
        "marker": {"color": ["#9aa7b8" if e.is_baseline or not e.overall else TIER_COLOURS[(e.overall.tier - 1) % 2]
                             for e in entries],
                   "pattern": {"shape": ["/" if e.is_baseline else "" for e in entries], "fgcolor": "#4a5568"}},
        "customdata": ["unranked" if e.is_baseline or not e.overall else f"band {e.overall.band}, tier {e.overall.tier}"
                       for e in entries],
        "hovertemplate": f"%{{y}}: %{{x:.{leaderboard.decimals}f}} (%{{customdata}})<extra></extra>"}
    title = f"{metric} {average.label} with {leaderboard.bands.confidence}% intervals, by tier"
    return {"data": [trace], "layout": {
        **_title(title), "xaxis": _title(f"{metric} {average.label}"),
        "yaxis": {"autorange": "reversed", "automargin": True, "tickvals": names, "ticktext": [_short(n) for n in names]},
        "height": max(300, 140 + 24 * len(entries)), "margin": {"t": 50, "l": 10}}}


def team_language_figure(leaderboard: Leaderboard, *, metric: str) -> dict | None:
    """Every row (team or baseline) x every non-pair subset column, coloured by `metric`: 126
    bars in one chart are hard to read, a grid is not. None when there is nothing to grid."""
    columns = [c for c in leaderboard.subset_columns if c.kind != "pair"]
    entries = leaderboard.entries
    if not columns or not entries:
        return None
    cell = cell_value(leaderboard.decimals)
    names = [_name(entry) for entry in entries]
    trace = {"type": "heatmap", "z": [[entry.cell(c, metric) for c in columns] for entry in entries],
             "x": [c.label for c in columns], "y": names, "colorscale": VIRIDIS,
             "hoverongaps": False, "texttemplate": cell if len(columns) * len(entries) <= 400 else "",
             "hovertemplate": f"%{{y}}<br>%{{x}}: {cell}<extra></extra>"}
    # Every row and column labelled (dtick 1: plotly named every other of the Cup's 18 languages),
    # rows by a name cut short (the full one in the hover): long ones left the grid a sliver.
    return {"data": [trace], "layout": {
        **_title(f"{metric} per team and subset"),
        "yaxis": {"autorange": "reversed", "automargin": True, "dtick": 1, "tickvals": names,
                  "ticktext": [_short(name) for name in names]},
        "xaxis": {"side": "top", "dtick": 1}, "height": 160 + 24 * len(entries), "margin": {"t": 90, "l": 10}}}


def _short(name: str, length: int = 28) -> str:
    return name if len(name) <= length else name[:length - 1] + "…"


def pair_axes(columns: list[Column]) -> tuple[list[str], list[str]]:
    """Sources and targets of pair subsets coded "src-tgt", in column order."""
    sources, targets = [], []
    for column in columns:
        source, _, target = column.key.partition("-")
        if source not in sources:
            sources.append(source)
        if target not in targets:
            targets.append(target)
    return sources, targets


def heatmap_figure(leaderboard: Leaderboard, *, metric: str, top: int = HEATMAP_TEAMS) -> dict | None:
    """Source x target heatmap of pair subsets (CLIRMatrix style) for one of the top
    entries at a time (a dropdown switches between them). None when there are no pairs."""
    pairs = [c for c in leaderboard.subset_columns if c.kind == "pair" and "-" in c.key]
    entries = [e for e in leaderboard.entries if not e.is_baseline][:top]
    if not pairs or not entries:
        return None
    sources, targets = pair_axes(pairs)

    def grid(entry: Entry) -> list[list[float | None]]:
        z: list[list[float | None]] = [[None] * len(targets) for _ in sources]
        for column in pairs:
            source, _, target = column.key.partition("-")
            z[sources.index(source)][targets.index(target)] = entry.cell(column, metric)
        return z

    cell = cell_value(leaderboard.decimals)
    trace = {"type": "heatmap", "z": grid(entries[0]), "x": targets, "y": sources, "colorscale": VIRIDIS,
             "colorbar": _title(metric), "texttemplate": cell,
             "hovertemplate": f"%{{y}} → %{{x}}: {cell}<extra></extra>"}
    # Short enough for a phone's chart: the title, then the menu on a line of its own, then the grid.
    layout = {**_title(f"{metric} by source and target"), "xaxis": _title("target"),
              "yaxis": {**_title("source"), "autorange": "reversed"}, "margin": {"t": 50}}
    if len(entries) > 1:
        buttons = [{"label": _short(_name(e), 32), "method": "restyle", "args": [{"z": [grid(e)]}]} for e in entries]
        layout |= {"updatemenus": [{"buttons": buttons, "x": 0, "xanchor": "left", "y": 1.02, "yanchor": "bottom"}],
                   "margin": {"t": 100}}
    return {"data": [trace], "layout": layout}


# A baseline as a submission's chart shows it: its method, its page and {subset code: value}.
Baseline = tuple[str, str, dict[str, float | None]]


def baselines_of(leaderboard: Leaderboard, *, metric: str) -> list[Baseline]:
    """The baselines of a leaderboard with their `metric` per subset: none when the viewer may
    not see the board. Small, and the same for every submission of the phase: kept per board
    version and viewer class (leaderboards/templatetags/submission_charts.py)."""
    if not leaderboard.visible:
        return []
    columns = leaderboard.subset_columns
    return [(entry.method, entry.url or "", {c.key: entry.cell(c, metric) for c in columns})
            for entry in leaderboard.entries if entry.is_baseline]


def submission_figure(*, name: str, values: dict[str, float | None], baselines: list[Baseline], metric: str,
                      decimals: int, own_url: str = "") -> dict:
    """One submission's bars per subset ({code: value}, as its viewer may see them) beside the
    phase's baselines (but itself, at `own_url`): plain plotly JSON, as the board's charts."""
    codes = list(values)
    hover = bar_hover(decimals)
    traces: list[dict] = [{"type": "bar", "name": name, "x": codes, "y": [values[c] for c in codes],
                           "hovertemplate": hover}]
    traces += [{"type": "bar", "name": f"{method} (baseline)", "x": codes, "y": [cells.get(c) for c in codes],
                "marker": {"pattern": {"shape": "/"}}, "hovertemplate": hover}
               for method, url, cells in baselines if url != own_url]
    return {"data": traces, "layout": {"barmode": "group", **_title(f"{metric} per subset"), "yaxis": _title(metric),
                                       "margin": {"t": 50, "b": 40}}}


def history_figures(history: History) -> list[dict]:
    """Each team's primary value and rank after every change of the leaderboard, as steps
    (a value holds until the next change): what moved, and when. Empty with no points. Plain
    dicts, as the board's: a trace per team per chart (1,000 for the bench's 500 teams), which
    graph_objects validated one property at a time on every render of the page."""
    if not history.points:
        return []
    teams: dict[str, list] = {}
    for point in history.points:
        teams.setdefault(point.team, []).append(point)
    times = {team: [p.at.isoformat() for p in points] for team, points in teams.items()}

    def steps(y, hover: str) -> list[dict]:
        return [{"type": "scatter", "name": team, "x": times[team], "y": [y(p) for p in points],
                 "mode": "lines+markers", "line": {"shape": "hv"}, "hovertemplate": hover}
                for team, points in teams.items()]
    at = "%{fullData.name}<br>%{x|%Y-%m-%d %H:%M} UTC: "
    values = {"data": steps(lambda p: p.value, f"{at}%{{y:.{history.decimals}f}}<extra></extra>"),
              "layout": {**_title(f"{history.metric} (Avg) of each team over time"), "yaxis": _title(history.metric),
                         "xaxis": _title("UTC"), "margin": {"t": 50, "b": 40}}}
    ranks = {"data": steps(lambda p: p.rank, f"{at}rank %{{y}}<extra></extra>"),
             "layout": {**_title("Rank of each team over time"), "xaxis": _title("UTC"),
                        "yaxis": {**_title("rank"), "autorange": "reversed", "dtick": 1}, "margin": {"t": 50, "b": 40}}}
    return [values, ranks]


# Characters that could end the <script> element or start markup, as Django's json_script escapes them.
def leaderboard_charts(leaderboard: Leaderboard, *, metric: str) -> list[str]:
    """HTML fragments of every chart that fits this leaderboard."""
    if not leaderboard.visible or not leaderboard.entries or not leaderboard.subset_columns:
        return []
    return as_html([bands_figure(leaderboard, metric=metric), bars_figure(leaderboard, metric=metric),
                    team_language_figure(leaderboard, metric=metric),
                    heatmap_figure(leaderboard, metric=metric)])
