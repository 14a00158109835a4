"""The overview paper's tables, made from a final phase's frozen official results only.

Three tables: `languages` (one measure on each subset: the primary one, or `metric`),
`averages` (each group average and Avg, with the rank band and tier on Avg as the rank bands
computed them at the reveal) and `measures` (every measure the phase declares on the overall
average, as a TREC overview's appendix lists them), as LaTeX (booktabs;
`\\usepackage{booktabs}`) or Markdown. A run significantly better
than a baseline carries that baseline's mark on the cell (leaderboards/paper_marks.py); the
caption names the test and correction. Run metadata columns are the organizer's pick among
the fields frozen with the results. The snapshot never changes, so neither do the tables.
"""
from __future__ import annotations

import json
from dataclasses import dataclass

from cupboard.leaderboards.models import FrozenSnapshot

TABLES = ("languages", "averages", "measures")
KIND_WORDS = {"language": "per language", "pair": "per language pair", "test_set": "per test set"}
FORMATS = ("tex", "md")
# One mark per baseline, in the order the baselines appear in the table; then numbers.
MARKS = (("†", r"\dag"), ("‡", r"\ddag"), ("§", r"\S"), ("¶", r"\P"))
_TEX_ESCAPES = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
                "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
                "<": r"\textless{}", ">": r"\textgreater{}", "|": r"\textbar{}",
                "\n": " ", "\r": " ", "\t": " ", "\f": " ", "\v": " "}
# Every ASCII punctuation character: CommonMark lets each be backslash-escaped, and then none
# can open markup (<img>, [link](url), *emphasis*, `code`, an autolink's "://" or "www.").
_MD_SPECIAL = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
TEST_NAMES = {"randomization": "paired randomization test", "t-test": "paired t-test"}
CORRECTION_NAMES = {"holm": "Holm-Bonferroni correction", "bonferroni": "Bonferroni correction", "none": "no correction"}


class TableError(ValueError):
    """A table that cannot be made as asked (an unknown table, format or metadata field)."""


def tex_escape(text: str) -> str:
    """`text` safe inside a LaTeX cell: the ten special characters written as commands (and
    `< > |`, which the default font encoding prints as other signs), line breaks as spaces."""
    return "".join(_TEX_ESCAPES.get(char, char) for char in text)


def md_escape(text: str) -> str:
    """`text` shown as written inside a Markdown table cell: a team named `<img src=x>
    [Click](https://...)` stays text, not an image and a link in the organizer's published
    tables. Every ASCII punctuation character is backslash-escaped; line breaks become spaces."""
    return "".join("\\" + char if char in _MD_SPECIAL else " " if char in "\r\n" else char for char in text)


def mark(k: int, fmt: str) -> str:
    if k < len(MARKS):
        return MARKS[k][0] if fmt == "md" else MARKS[k][1]
    return f"^{k + 1}" if fmt == "md" else rf"\ensuremath{{^{{{k + 1}}}}}"


@dataclass(frozen=True)
class Table:
    """A table's content before it is written out: header and rows of plain strings (marks
    and emphasis are given apart, so each format writes them its own way)."""

    caption: str
    label: str
    header: list[str]
    numeric: list[bool]
    rows: list[list[str]]
    marks: list[list[list[int]]]  # per row and cell, the baselines marked on it
    best: list[list[bool]]        # per row and cell, the column's best value
    notes: list[str]

    @property
    def cells(self) -> list[list[tuple[str, str, bool]]]:
        """(text, marks as symbols, best) of each cell, row by row: the page's preview."""
        return [[(text, "".join(mark(k, "md") for k in m), b) for text, m, b in zip(row, marks, best, strict=True)]
                for row, marks, best in zip(self.rows, self.marks, self.best, strict=True)]


def _metadata_fields(data: dict, names: list[str]) -> list[dict]:
    fields = {f["name"]: f for f in data.get("metadata_fields", [])}
    unknown = [name for name in names if name not in fields]
    if unknown:
        raise TableError(f"no run metadata field {', '.join(unknown)}; these results have "
                         f"{', '.join(fields) or 'none'}")
    return [fields[name] for name in names]


def _meta_text(value) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    return "" if value is None else str(value)


def _columns(data: dict, table: str) -> list[tuple[str, str, bool]]:
    """(key in the row, heading, is an average) of the score columns."""
    if table == "languages":
        return [(s["code"], s["code"], False) for s in data["subsets"]]
    if table == "measures":
        return [(name, name, True) for name in data["metrics"]]
    return [(label, label, True) for label in data["averages"]]


def _score(row: dict, data: dict, table: str, key: str, average: bool, metric: str) -> float | None:
    if table == "measures":  # a measure on the overall average (the last average column: Avg)
        return row["averages"].get(data["averages"][-1], {}).get(key) if data["averages"] else None
    return (row["averages"] if average else row["values"]).get(key, {}).get(metric)


def _chosen(columns: list[tuple[str, str, bool]], chosen: list[str] | None, table: str) -> list[tuple[str, str, bool]]:
    """The score columns named in `chosen` (measures, subset codes or average labels), in its order."""
    if not chosen:
        return columns
    by_key = {key: column for column in columns for key in (column[0], column[1])}
    unknown = [name for name in chosen if name not in by_key]
    if unknown:
        raise TableError(f"no column {', '.join(unknown)} in the {table} table; it has "
                         f"{', '.join(heading for _, heading, _ in columns)}")
    return [by_key[name] for name in dict.fromkeys(chosen)]


def table_content(snapshot: FrozenSnapshot, *, table: str, metadata: list[str], metric: str | None = None,
                  columns: list[str] | None = None) -> Table:
    """The table's content from the snapshot's JSON and its frozen per-query values; `metric`
    (one of the phase's measures) for the `languages` and `averages` tables, else the primary one;
    `columns` the score columns chosen (measures of `measures`, subsets or averages), else all.
    One row per run the results list: with every counted run, a team's other runs are unranked."""
    from cupboard.leaderboards.paper_marks import snapshot_marks

    if table not in TABLES:
        raise TableError(f"no table {table!r}; there are {', '.join(TABLES)}")
    data = json.loads(snapshot.json)
    if metric is not None and metric not in data["metrics"]:
        raise TableError(f"no measure {metric!r}; these results have {', '.join(data['metrics'])}")
    fields = _metadata_fields(data, metadata)
    shown = _chosen(_columns(data, table), columns, table)
    metric, decimals = metric or data["primary_metric"], data.get("rounded_to") or 3
    baselines = [i for i, row in enumerate(data["rows"]) if row["baseline"]]
    payload = json.loads(snapshot.per_query) if snapshot.per_query else None
    # the marks are the primary measure's test (frozen per-query values): on its tables only
    marked = payload and baselines and metric == data["primary_metric"] and table != "measures"
    found = snapshot_marks(snapshot) if marked else {}
    banded = table == "averages" and data.get("significance")
    header = ["Rank", *(["Band", "Tier"] if banded else []), "Team", "Run", *(f["label"] for f in fields),
              *(heading for _, heading, _ in shown)]
    lead = len(header) - len(shown)
    rows: list[list[str]] = []
    marks: list[list[list[int]]] = []
    values: list[list[float | None]] = []
    for i, row in enumerate(data["rows"]):
        scores = [_score(row, data, table, key, average, metric) for key, _, average in shown]
        overall = (row.get("standings") or {}).get("Avg", {})
        rows.append(["" if row["rank"] is None else str(row["rank"]),
                     *([overall.get("band", ""), str(overall.get("tier", ""))] if banded else []),
                     "Baseline" if row["baseline"] else row["team"], row["method"],
                     *(_meta_text(row["metadata"].get(f["name"])) for f in fields),
                     *("–" if v is None else f"{v:.{decimals}f}" for v in scores)])
        marks.append([[]] * lead + [found.get(i, {}).get(key, []) for key, _, _ in shown])
        values.append(scores)
    best = [max((v for v in column if v is not None), default=None) for column in zip(*values, strict=True)] \
        if values else []
    flags = [[False] * lead + [v is not None and v == top for v, top in zip(scores, best, strict=True)]
             for scores in values]
    return Table(caption=_caption(snapshot, data, table, metric), label=f"tab:{data['competition']}-{data['phase']}-{table}",
                 header=header, numeric=[False] * lead + [True] * len(shown), rows=rows, marks=marks, best=flags,
                 notes=_notes(data, payload if marked else None,
                              [data["rows"][b]["method"] for b in baselines], banded,
                              unmarked=None if marked or not payload else data["primary_metric"]))


def _caption(snapshot: FrozenSnapshot, data: dict, table: str, metric: str) -> str:
    kinds = {s.get("kind") for s in data["subsets"]}
    per = KIND_WORDS.get(kinds.pop(), "per subset") if len(kinds) == 1 else "per subset"
    if table == "measures":
        what = f"Every measure on {data['averages'][-1] if data['averages'] else 'the average'}"
    else:
        what = f"{metric} {per if table == 'languages' else 'averaged over ' + per.removeprefix('per ') + 's'}"
    return (f"{what}, official results of {data['competition']} / {data['phase']} "
            f"(qrels v{snapshot.qrels_release_number or '-'}, frozen {snapshot.frozen_at:%Y-%m-%d}).")


def _notes(data: dict, payload: dict | None, baseline_names: list[str], banded, *,
           unmarked: str | None = None) -> list[str]:
    notes = ["Best value per column in bold."]
    if baseline_names and unmarked:
        notes.append(f"No significance marks: they test the primary measure, {unmarked}, on its tables.")
        baseline_names = []
    if baseline_names and payload:
        s = payload["significance"]
        marked = ", ".join(f"{mark(k, 'md')} {name}" for k, name in enumerate(baseline_names))
        notes.append(f"Marks: significantly better than the baseline ({marked}): {TEST_NAMES[s['test']]}"
                     + (f" ({s['trials']:,} trials, seed {s['seed']})" if s["test"] == "randomization" else "")
                     + f" on per-query {payload['metric']}, {CORRECTION_NAMES[s['correction']]} over the runs "
                       f"compared with each baseline, alpha = {s['alpha']}; averages test the queries of all "
                       f"their languages together.")
    elif baseline_names:
        notes.append("No significance marks: the per-query values were not frozen with these results.")
    if banded:
        s = data["significance"]
        notes.append(f"Band: the range of ranks on Avg not excluded by the {TEST_NAMES[s['test']]} "
                     f"({CORRECTION_NAMES[s['correction']]}, alpha = {s['alpha']}); Tier 1: runs not significantly "
                     f"worse than the leader.")
    return notes


def _tex_cell(text: str, marks: list[int], best: bool) -> str:
    cell = tex_escape(text)
    if best:
        cell = rf"\textbf{{{cell}}}"
    if marks:
        cell += r"\textsuperscript{" + "".join(mark(k, "tex") for k in marks) + "}"
    return cell


def latex(table: Table) -> str:
    """A `table*` float with a booktabs `tabular`: one row per run, notes in the caption."""
    spec = "".join("r" if numeric else "l" for numeric in table.numeric)
    lines = [r"% Made by cupboard from the frozen official results; needs \usepackage{booktabs}.",
             r"\begin{table*}[t]", r"\centering", r"\small",
             r"\caption{" + tex_escape(" ".join([table.caption, *table.notes])).replace("†", r"\dag{}")
             .replace("‡", r"\ddag{}").replace("§", r"\S{}").replace("¶", r"\P{}") + "}",
             r"\label{" + table.label + "}", r"\begin{tabular}{" + spec + "}", r"\toprule",
             " & ".join(tex_escape(h) for h in table.header) + r" \\", r"\midrule"]
    for row, marks, best in zip(table.rows, table.marks, table.best, strict=True):
        lines.append(" & ".join(_tex_cell(text, m, b) for text, m, b in zip(row, marks, best, strict=True)) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}", r"\end{table*}", ""]
    return "\n".join(lines)


def _md_cell(text: str, marks: list[int], best: bool, numeric: bool) -> str:
    cell = text if numeric else md_escape(text)  # a number is written here ("0.309", "–"), never typed
    if best:
        cell = f"**{cell}**"
    return cell + "".join(mark(k, "md") for k in marks)


def markdown(table: Table) -> str:
    """A GitHub-flavoured Markdown table under its caption, the notes below it."""
    lines = [f"**{md_escape(table.caption)}**", "",
             "| " + " | ".join(md_escape(h) for h in table.header) + " |",
             "|" + "|".join("---:" if numeric else "---" for numeric in table.numeric) + "|"]
    for row, marks, best in zip(table.rows, table.marks, table.best, strict=True):
        lines.append("| " + " | ".join(_md_cell(text, m, b, n) for text, m, b, n
                                       in zip(row, marks, best, table.numeric, strict=True)) + " |")
    return "\n".join([*lines, "", *table.notes, ""])


def paper_table(snapshot: FrozenSnapshot, *, table: str, fmt: str, metadata: list[str],
                metric: str | None = None, columns: list[str] | None = None) -> str:
    """The table `table` of the snapshot in `fmt` (tex or md), with the `metadata` columns,
    `metric` (default: the primary measure) and the score `columns` chosen (default: all)."""
    if fmt not in FORMATS:
        raise TableError(f"no format {fmt!r}; there are {', '.join(FORMATS)}")
    content = table_content(snapshot, table=table, metadata=metadata, metric=metric, columns=columns)
    return latex(content) if fmt == "tex" else markdown(content)
