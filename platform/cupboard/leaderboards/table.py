"""The leaderboard table's body as HTML, built in Python.

A large board's rows through the template language were most of an uncached page
(`floatformat` above all; docs/benchmarks.md); this loop writes the same
markup (templates/leaderboards/_table.html holds the head; tests/leaderboards/test_table_html.py
compares both). Every text a user wrote (team, method, run metadata) is escaped.
"""
from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from html import escape  # Django's, for plain str, adds a lazy-text check per call, and a board calls it per cell

from django.utils.safestring import SafeString, mark_safe

from cupboard.leaderboards.selectors import Bands, Column, Entry, Leaderboard
from evaluator.rank_bands import Standing

INCOMPLETE = '<span class="muted" title="incomplete">–</span>'
NOT_GIVEN = '<span class="muted" title="not given">–</span>'


@dataclass(frozen=True)
class _Look:
    """How every row of one table is written."""

    decimals: int
    rounded: bool
    bands: Bands | None
    show_bands: bool


def fixed(value: float, decimals: int) -> str:
    """`value` to `decimals` places, rounded half up as Django's `floatformat` does. A value
    already rounded to `decimals` (what non-organizers get) has no half to round: the plain
    format agrees, and `_cells` uses it."""
    return str(Decimal(repr(value)).quantize(Decimal(1).scaleb(-decimals), rounding=ROUND_HALF_UP))


def _meta_cell(value: str) -> str:
    """A run-metadata value in words, as its submission gave it ("–" when not given)."""
    text = escape(value)
    return f'<td class="meta" data-value="{text}">{text or NOT_GIVEN}</td>'


def _title(standing: Standing | None, bands: Bands | None, decimals: int) -> str:
    """A score's rank band and interval in its column, as the cell's tooltip."""
    if standing is None or bands is None:
        return ""
    band = f"rank band {standing.band} · " if standing.tier else ""
    return (f' title="{band}{bands.confidence}% interval {fixed(standing.ci_low, decimals)}'
            f'–{fixed(standing.ci_high, decimals)}"')


_NOTHING: dict = {}


def _cell(css: str, value: float | None, title: str, look: _Look) -> str:
    if value is None:
        return f'<td class="{css}" data-value=""{title}>{INCOMPLETE}</td>'
    text = f"{value:.{look.decimals}f}" if look.rounded else fixed(value, look.decimals)
    return f'<td class="{css}" data-value="{value}"{title}>{text}</td>'


def _cells(entry: Entry, columns: list[tuple[Column, str]], metric: str, look: _Look, primary: bool,
           written: dict) -> str:
    """The score cells of one row, in column order: the hot loop of a 500-row board (10,000
    cells), so it reads the entry's dicts directly rather than through `Entry.cell`, and
    takes a cell without a tooltip from `written` (a table's cells by class and value: values
    rounded to 3 places take at most a thousand, so most cells are written once per table)."""
    standings = entry.standings if primary else _NOTHING
    out = []
    for column, css in columns:
        value = (entry.averages if column.is_average else entry.values).get(column.key, _NOTHING).get(metric)
        standing = standings.get(column.key)
        if standing is not None:
            out.append(_cell(css, value, _title(standing, look.bands, look.decimals), look))
            continue
        cell = written.get((css, value))
        if cell is None:
            cell = written[(css, value)] = _cell(css, value, "", look)
        out.append(cell)
    return "".join(out)


def _tier(entry: Entry, look: _Look) -> tuple[str, str, str]:
    """The row's tier classes and attribute, and its Band cell (empty strings without bands)."""
    if not look.show_bands:
        return "", "", ""
    overall = entry.overall
    if overall is None or not overall.tier:
        return "", "", '<td class="num band" data-value=""></td>'
    css = f" tier-{'even' if overall.tier % 2 == 0 else 'odd'}" + (" tied-leader" if overall.tier == 1 else "")
    return css, f' data-tier="{overall.tier}"', f'<td class="num band" data-value="{overall.low}">{overall.band}</td>'


def _row(number: int, entry: Entry, cells: str, look: _Look) -> str:
    tier_css, tier_attr, band = _tier(entry, look)
    css = ("baseline" if entry.is_baseline else "") + (" own" if entry.is_own else "") + tier_css
    # <bdi>: a right-to-left name (Arabic, Persian) keeps its own direction without turning the row's.
    team = f"<bdi>{escape(entry.team)}</bdi>" + (' <span class="badge">baseline</span>' if entry.is_baseline else "")
    method = f"<bdi>{escape(entry.method)}</bdi>"
    method = f'<a href="{escape(entry.url)}">{method}</a>' if entry.url else method
    rank = "" if entry.rank is None else entry.rank
    return (f'<tr class="{css}"{tier_attr}>\n      <td class="num" data-value="{number}">{rank}</td>\n'
            f'      <td>{team}</td>\n      <td>{method}</td>\n      {band}{cells}'
            + "".join(_meta_cell(value) for value in entry.metadata_cells) + "\n    </tr>\n")


def table_body(leaderboard: Leaderboard, metric: str, *, show_bands: bool = False) -> SafeString:
    """The `<tr>` rows of `metric`, in leaderboard order, numbered for the page's sorting script;
    with the Band column and tier shading when `show_bands`. Standings (rank band, interval)
    are the primary metric's only."""
    decimals = leaderboard.decimals
    look = _Look(decimals=decimals, rounded=leaderboard.rounded_to is not None and leaderboard.rounded_to <= decimals,
                 bands=leaderboard.bands, show_bands=show_bands)
    columns = [(c, "num avg" if c.is_average else "num") for c in leaderboard.columns]
    primary = metric == leaderboard.primary_metric
    written: dict[tuple[str, float | None], str] = {}
    return mark_safe("    ".join(  # noqa: S308 - every text escaped above
        _row(number, entry, _cells(entry, columns, metric, look, primary, written), look)
        for number, entry in enumerate(leaderboard.entries, start=1)))
