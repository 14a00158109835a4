"""The leaderboard table's body as HTML, built in Python.

500 rows of 20-odd cells through the template language took ~0.4 s, most of an uncached
page (`floatformat` alone a third of it); this loop takes milliseconds and writes the same
markup (templates/leaderboards/_table.html holds the head; tests/leaderboards/test_table_html.py
compares both). Every text a user wrote (team, method, run metadata) is escaped.
"""
from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from cupboard.leaderboards.selectors import Column, Entry, Leaderboard

INCOMPLETE = '<span class="muted" title="incomplete">–</span>'
NOT_GIVEN = '<span class="muted" title="not given">–</span>'


def fixed(value: float, decimals: int) -> str:
    """`value` to `decimals` places, rounded half up as Django's `floatformat` does."""
    return str(Decimal(repr(value)).quantize(Decimal(1).scaleb(-decimals), rounding=ROUND_HALF_UP))


def _cell(column: Column, value: float | None, decimals: int, rounded: bool) -> str:
    css = "num avg" if column.is_average else "num"
    if value is None:
        return f'<td class="{css}" data-value="">{INCOMPLETE}</td>'
    # A value already rounded to `decimals` has no half to round: the plain format agrees.
    text = f"{value:.{decimals}f}" if rounded else fixed(value, decimals)
    return f'<td class="{css}" data-value="{value}">{text}</td>'


def _meta_cell(value: str) -> str:
    """A run-metadata value in words, as its submission gave it ("–" when not given)."""
    text = escape(value)
    return f'<td class="meta" data-value="{text}">{text or NOT_GIVEN}</td>'


def _row(number: int, entry: Entry, cells: list[tuple[Column, float | None]], decimals: int, rounded: bool) -> str:
    css = ("baseline" if entry.is_baseline else "") + (" own" if entry.is_own else "")
    team = escape(entry.team) + (' <span class="badge">baseline</span>' if entry.is_baseline else "")
    method = f'<a href="{escape(entry.url)}">{escape(entry.method)}</a>' if entry.url else escape(entry.method)
    rank = "" if entry.rank is None else entry.rank
    return (f'<tr class="{css}">\n      <td class="num" data-value="{number}">{rank}</td>\n'
            f'      <td>{team}</td>\n      <td>{method}</td>\n      '
            + "".join(_meta_cell(value) for value in entry.metadata_cells)
            + "".join(_cell(column, value, decimals, rounded) for column, value in cells) + "\n    </tr>\n")


def table_body(leaderboard: Leaderboard, metric: str) -> SafeString:
    """The `<tr>` rows of `metric`, in leaderboard order, numbered for the page's sorting script."""
    decimals = leaderboard.decimals
    rounded = leaderboard.rounded_to is not None and leaderboard.rounded_to <= decimals
    return mark_safe("    ".join(_row(number, entry, cells, decimals, rounded)  # noqa: S308 - every text escaped above
                                   for number, (entry, cells) in enumerate(leaderboard.table(metric), start=1)))
