"""The leaderboard table's body as HTML, built in Python.

500 rows of 20-odd cells through the template language took ~0.4 s, most of an uncached
page (`floatformat` alone a third of it); this loop takes milliseconds and writes the same
markup (templates/leaderboards/_table.html holds the head; tests/leaderboards/test_table_html.py
compares both). Every text a user wrote (team, method, run metadata) is escaped.
"""
from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal

from django.utils.html import escape
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
    """`value` to `decimals` places, rounded half up as Django's `floatformat` does."""
    return str(Decimal(repr(value)).quantize(Decimal(1).scaleb(-decimals), rounding=ROUND_HALF_UP))


def _number(value: float, decimals: int, rounded: bool) -> str:
    # A value already rounded to `decimals` has no half to round: the plain format agrees.
    return f"{value:.{decimals}f}" if rounded else fixed(value, decimals)


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


def _cell(column: Column, value: float | None, standing: Standing | None, look: _Look) -> str:
    css = "num avg" if column.is_average else "num"
    title = _title(standing, look.bands, look.decimals)
    if value is None:
        return f'<td class="{css}" data-value=""{title}>{INCOMPLETE}</td>'
    return f'<td class="{css}" data-value="{value}"{title}>{_number(value, look.decimals, look.rounded)}</td>'


def _tier(entry: Entry, look: _Look) -> tuple[str, str, str]:
    """The row's tier classes and attribute, and its Band cell (empty strings without bands)."""
    if not look.show_bands:
        return "", "", ""
    overall = entry.overall
    if overall is None or not overall.tier:
        return "", "", '<td class="num band" data-value=""></td>'
    css = f" tier-{'even' if overall.tier % 2 == 0 else 'odd'}" + (" tied-leader" if overall.tier == 1 else "")
    return css, f' data-tier="{overall.tier}"', f'<td class="num band" data-value="{overall.low}">{overall.band}</td>'


def _row(number: int, entry: Entry, cells: list, look: _Look) -> str:
    tier_css, tier_attr, band = _tier(entry, look)
    css = ("baseline" if entry.is_baseline else "") + (" own" if entry.is_own else "") + tier_css
    team = escape(entry.team) + (' <span class="badge">baseline</span>' if entry.is_baseline else "")
    method = f'<a href="{escape(entry.url)}">{escape(entry.method)}</a>' if entry.url else escape(entry.method)
    rank = "" if entry.rank is None else entry.rank
    return (f'<tr class="{css}"{tier_attr}>\n      <td class="num" data-value="{number}">{rank}</td>\n'
            f'      <td>{team}</td>\n      <td>{method}</td>\n      '
            + "".join(_meta_cell(value) for value in entry.metadata_cells) + band
            + "".join(_cell(column, value, standing, look) for column, value, standing in cells) + "\n    </tr>\n")


def table_body(leaderboard: Leaderboard, metric: str, *, show_bands: bool = False) -> SafeString:
    """The `<tr>` rows of `metric`, in leaderboard order, numbered for the page's sorting script;
    with the Band column and tier shading when `show_bands`."""
    decimals = leaderboard.decimals
    look = _Look(decimals=decimals, rounded=leaderboard.rounded_to is not None and leaderboard.rounded_to <= decimals,
                 bands=leaderboard.bands, show_bands=show_bands)
    return mark_safe("    ".join(_row(number, entry, cells, look)  # noqa: S308 - every text escaped above
                                   for number, (entry, cells) in enumerate(leaderboard.table(metric), start=1)))
