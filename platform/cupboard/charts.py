"""Charts on a page: plotly figures written as JSON data that static/charts.js draws, for every
app's pages (leaderboards, submissions, judging). The figures themselves are built by each app.

The HTML never loads plotly.js from a CDN; the page includes it once as our own static file
(`plotly/plotly-cupboard.min.js`, see cupboard/staticfiles.py), through templates/_charts.html.
"""
from __future__ import annotations

import importlib.util
import json
from functools import cache
from pathlib import Path

from django.utils.html import format_html
from django.utils.safestring import mark_safe

from cupboard.bidi import isolate
from cupboard.jsonexport import json_escaped


def _dumps(value) -> str:
    """Compact JSON, NaN and infinities as null (as plotly.py writes them): json would write a
    bare NaN, which the browser's JSON.parse refuses, and the chart would not be drawn."""
    try:
        return json.dumps(value, separators=(",", ":"), allow_nan=False)
    except ValueError:
        strict = json.loads(json.dumps(value), parse_constant=lambda _: None)
        return json.dumps(strict, separators=(",", ":"))


@cache
def default_template() -> str:
    """plotly.py's default template ("plotly"), which its `to_json()` puts in every layout and
    which gives the charts their look, as JSON: read once per process from the plotly package's
    own file, found without importing plotly (importing it costs more than a page's charts)."""
    spec = importlib.util.find_spec("plotly")
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("plotly is not installed: the charts take their template from it")
    package = Path(spec.submodule_search_locations[0])
    return _dumps(json.loads((package / "package_data" / "templates" / "plotly.json").read_text()))


# Keys whose strings are our own plotly markup (`<br>`, `<extra>`); any other string in a figure
# may be a participant's (a team, a method, a baseline, a submission's name).
_OUR_MARKUP = frozenset({"hovertemplate", "texttemplate"})
_NUMBERS = {float, int, bool, type(None)}


def plain(value, key: str | None = None):
    """`value` (a figure, or any part of one) with every string but our own templates made
    text: plotly draws a subset of HTML in every text it shows (legend, ticks, hover, titles,
    buttons), `<a href>` as a live link, and turns entities back into the characters, so a
    team named `<a href=...>` shows as typed and links nowhere. A right-to-left string is
    isolated too (cupboard/bidi.py): plotly's text is no HTML that could hold a `<bdi>`, and a
    hover's "%{y}: 0.52" would draw the number on the other side of an Arabic name."""
    if isinstance(value, str):
        if key in _OUR_MARKUP:
            return value
        return isolate(value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;"))
    if isinstance(value, dict):
        return {k: plain(v, k) for k, v in value.items()}
    if isinstance(value, list):
        if set(map(type, value)) <= _NUMBERS:  # a heatmap's rows: 500 x 18 cells, read at C speed
            return value
        return [plain(v, key) for v in value]
    return value


def figure_json(figure) -> str:
    """A dict figure as plotly.py's `to_json()` would write it, the cached template spliced into
    its layout (dumping 6.5 kB again per figure would cost more than the figure); a graph_objects
    Figure (the other pages') by its own `to_json()`. Either with its strings `plain`."""
    if not isinstance(figure, dict):
        return _dumps(plain(json.loads(figure.to_json())))
    layout = _dumps(plain(figure["layout"]))[1:-1]
    return (f'{{"data":{_dumps(plain(figure["data"]))},"layout":{{{layout}{"," if layout else ""}'
            f'"template":{default_template()}}}}}')


def as_html(figures) -> list[str]:
    """One div per figure (a dict or a graph_objects Figure) holding it as JSON data (a script of
    type application/json, never executed): static/charts.js draws it with plotly.js, so pages
    carry no inline script (cupboard/csp.py)."""
    return [format_html('<div class="plotly-chart"><script type="application/json">{}</script></div>',
                        mark_safe(json_escaped(figure_json(f))))  # noqa: S308 - escaped above
            for f in figures if f is not None]
