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


def number_cells(values: list[float | None]) -> list[str]:
    """The cells `csv_text` writes for `repr(value)` of each value ("" for None), made a column
    at a time: a float's text holds no comma, quote or line break (never quoted), and only a
    negative one starts with a formula character. A per-topic CSV of 1.4 million values spent
    most of its time putting them through `csv_text` one by one (docs/benchmarks.md)."""
    texts = ["" if value is None else repr(value) for value in values]
    if "\n-" in "\n" + "\n".join(texts):  # a negative value, in one pass at C speed
        return [safe_cell(text) for text in texts]
    return texts


def tsv_text(rows: Iterable[Iterable]) -> str:
    """Rows as tab-separated text (the pools sent to assessors), cells made safe as in
    `csv_text`. A row is one line ending in LF, as the TREC files the assessors' tools also
    read: a line break inside a cell becomes a space; a cell holding a tab or a quote is
    quoted as CSV quotes it."""
    out = io.StringIO()
    writer = csv.writer(out, delimiter="\t", lineterminator="\n")
    writer.writerows([safe_cell(cell).replace("\r", " ").replace("\n", " ") for cell in row] for row in rows)
    return out.getvalue()
