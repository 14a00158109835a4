"""CSV and JSON renderings of a `Leaderboard`: the same rows, columns and visibility as
the page, because they are built from the same selector result.

CSV is rounded to the competition's decimals for everyone (a spreadsheet of the page);
JSON carries the values as the viewer got them: rounded for participants, full precision
for organizers. Both carry the run metadata shown as columns (CSV `meta:<name>` in words,
JSON `metadata` as stored) and keep only the rows the page's filter keeps (JSON names it).
Where the viewer sees rank bands, both carry them for the primary metric,
per column: the band's lowest and highest rank (as two numbers in CSV: "1-3" would become a
date in a spreadsheet), the tier, and the interval. A board of every run (the official
results: `Leaderboard.every_run`) says of each row whether it is its team's board row
(`board_row`); the others are unranked.
"""
from __future__ import annotations

from datetime import datetime

from cupboard.csvexport import csv_text
from cupboard.leaderboards.selectors import History, Leaderboard


def _header(leaderboard: Leaderboard) -> list[str]:
    header = ["rank", "team", "method", "baseline", *(["board_row"] if leaderboard.every_run else []), "qrels_version",
              *(f"meta:{field.name}" for field in leaderboard.metadata_columns)]
    for metric in leaderboard.metrics:
        header += [f"{metric} {column.label}" for column in leaderboard.columns]
    if leaderboard.bands:
        header += [f"{leaderboard.primary_metric} {column.label} {what}" for column in leaderboard.columns
                   for what in STANDING_FIELDS]
    return header


STANDING_FIELDS = ("rank_low", "rank_high", "tier", "ci_low", "ci_high")


def _standing_cells(entry, leaderboard: Leaderboard) -> list:
    decimals, cells = leaderboard.decimals, []
    for column in leaderboard.columns:
        s = entry.standings.get(column.key)
        if s is None:
            cells += [""] * len(STANDING_FIELDS)
        else:
            ranks = [s.low, s.high, s.tier] if s.tier else ["", "", ""]
            cells += ranks + [f"{s.ci_low:.{decimals}f}", f"{s.ci_high:.{decimals}f}"]
    return cells


def _standings_json(entry, labels: dict[str, str]) -> dict:
    return {labels.get(key, key): {"band": s.band, "rank_low": s.low, "rank_high": s.high, "tier": s.tier,
                                   "tied_with_leader": s.tier == 1, "ci": [s.ci_low, s.ci_high]}
            if s.tier else {"ci": [s.ci_low, s.ci_high]}
            for key, s in entry.standings.items()}


def leaderboard_csv(leaderboard: Leaderboard) -> str:
    """One line per row, one column per (metric, subset or average); team and method names
    that look like formulas are neutralised (`csv_text`)."""
    decimals = leaderboard.decimals  # the viewer's digits, as on the page
    tables = [leaderboard.table(metric) for metric in leaderboard.metrics]
    lines: list[list] = [_header(leaderboard)]
    for position, entry in enumerate(leaderboard.entries):
        line = [entry.rank, entry.team, entry.method, "yes" if entry.is_baseline else "",
                *(["yes" if entry.board_row else ""] if leaderboard.every_run else []), entry.qrels_version,
                *entry.metadata_cells]
        for table in tables:
            line += ["" if v is None else f"{v:.{decimals}f}" for _, v, _ in table[position][1]]
        if leaderboard.bands:
            line += _standing_cells(entry, leaderboard)
        lines.append(line)
    return csv_text(lines)


def leaderboard_json(leaderboard: Leaderboard) -> dict:
    """A JSON-ready dict; averages are keyed by their column label (K.Avg, S.Avg, Avg)."""
    labels = {column.key: column.label for column in leaderboard.average_columns}
    return {
        "competition": leaderboard.competition.slug,
        "phase": leaderboard.phase.slug,
        "qrels_version": leaderboard.qrels_version,
        **({"as_of": leaderboard.as_of} if leaderboard.as_of else {}),
        **({"frozen_since": leaderboard.frozen_since} if leaderboard.frozen_since else {}),
        **({"rescoring": leaderboard.rescoring.as_dict()} if leaderboard.rescoring else {}),
        "metrics": leaderboard.metrics,
        "primary_metric": leaderboard.primary_metric,
        "rounded_to": leaderboard.rounded_to,
        "subsets": [{"code": c.key, "name": c.title, "kind": c.kind} for c in leaderboard.subset_columns],
        "metadata_fields": [{"name": f.name, "label": f.label, "type": f.type,
                             "choices": [value for value, _ in f.choices]} for f in leaderboard.metadata_columns],
        "filter": leaderboard.filters,
        "unfiltered_rows": leaderboard.unfiltered_count,
        "averages": [c.label for c in leaderboard.average_columns],
        "significance": leaderboard.bands.as_dict() | {"metric": leaderboard.primary_metric}
        if leaderboard.bands else None,
        **({"every_run": True} if leaderboard.every_run else {}),
        "rows": [{
            "rank": e.rank, "team": e.team, "method": e.method, "baseline": e.is_baseline,
            **({"board_row": e.board_row} if leaderboard.every_run else {}),
            "qrels_version": e.qrels_version, "metadata": e.metadata, "values": e.values,
            "averages": {labels[key]: value for key, value in e.averages.items()},
            **({"standings": _standings_json(e, labels)} if leaderboard.bands else {}),
        } for e in leaderboard.entries],
    }


def history_json(history: History, *, rounded_to: int | None, frozen_since: datetime | None) -> dict:
    """The data behind the history page's charts, JSON-ready: the instants of the changes and
    the points of `History` (a team's primary value (Avg) and rank where either changed, and its
    last at the latest instant), instant by instant in rank order; values rounded as the viewer
    sees them (`rounded_to`: None for full precision)."""
    return {
        "competition": history.phase.competition.slug, "phase": history.phase.slug, "metric": history.metric,
        "rounded_to": rounded_to, "decimals": history.decimals, "frozen_since": frozen_since,
        "instants": history.instants,
        "points": [{"at": p.at, "team": p.team, "rank": p.rank, "value": p.value} for p in history.points],
    }
