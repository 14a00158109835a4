"""CSV for spreadsheets: every CSV the site serves is written here, so no cell can run as a formula.

A spreadsheet reads a cell that starts with `=`, `+`, `-` or `@` (or a tab or carriage
return before one) as a formula: a method name `=HYPERLINK("http://…")` in a leaderboard
export would become a live link, or worse, on an organizer's machine. Such cells get a
leading apostrophe, which spreadsheets show as text (OWASP, "CSV Injection"). Numbers are
formatted by the caller and never start with one of these characters (scores are >= 0).
Lines end in CRLF, as RFC 4180 says: with a bare LF terminator Python's writer leaves a
carriage return inside a name unquoted, and readers then split the row there.
"""
from __future__ import annotations

import csv
import io
from collections.abc import Iterable

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def safe_cell(value) -> str:
    """`value` as text a spreadsheet shows as is."""
    text = "" if value is None else str(value)
    return "'" + text if text.startswith(FORMULA_STARTS) else text


def csv_text(rows: Iterable[Iterable]) -> str:
    """Rows (a header first, if any) as CSV text with every cell made safe."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerows([safe_cell(cell) for cell in row] for row in rows)
    return out.getvalue()


def tsv_text(rows: Iterable[Iterable]) -> str:
    """Rows as tab-separated text (the pools sent to assessors), cells made safe as in
    `csv_text`. A row is one line ending in LF, as the TREC files the assessors' tools also
    read: a line break inside a cell becomes a space; a cell holding a tab or a quote is
    quoted as CSV quotes it."""
    out = io.StringIO()
    writer = csv.writer(out, delimiter="\t", lineterminator="\n")
    writer.writerows([safe_cell(cell).replace("\r", " ").replace("\n", " ") for cell in row] for row in rows)
    return out.getvalue()
