"""Small immutable records shared by the whole evaluator.

Errors and warnings are data (`Problem`), never bare strings: the CLI prints them,
the platform shows them next to the upload, tests compare their codes.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    import numpy as np

Severity = Literal["error", "warning"]


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong (error) or odd (warning) with an input file, pointing at where it is.

    `code` is a stable identifier tests and scripts can rely on (e.g. "bad-score",
    "duplicate-docid"); `message` is plain English for a person.
    """

    code: str
    message: str
    file: str
    line: int | None = None
    column: int | None = None
    severity: Severity = "error"

    def as_dict(self) -> dict:
        return {"file": self.file, "line": self.line, "column": self.column,
                "code": self.code, "message": self.message}

    def __str__(self) -> str:
        where = self.file
        if self.line is not None:
            where += f":{self.line}"
            if self.column is not None:
                where += f":{self.column}"
        return f"{where}: {self.severity}: {self.message} [{self.code}]"


@dataclass(frozen=True, slots=True)
class ValidationReport:
    """The outcome of validating one file: at most MAX_PROBLEMS errors are collected."""

    file: str
    errors: tuple[Problem, ...] = ()
    warnings: tuple[Problem, ...] = ()
    lines: int = 0
    queries: int = 0

    @property
    def ok(self) -> bool:
        return not self.errors

    def as_dict(self) -> dict:
        return {"file": self.file, "ok": self.ok, "lines": self.lines, "queries": self.queries,
                "errors": [p.as_dict() for p in self.errors],
                "warnings": [p.as_dict() for p in self.warnings]}


@dataclass(frozen=True, slots=True)
class SubsetResult:
    """Scores of one run on one subset: the mean of each metric over every judged query
    (a query the run omits counts 0), and each query's value."""

    subset: str
    means: dict[str, float]
    per_query: dict[str, dict[str, float]] = field(default_factory=dict)  # metric -> qid -> value


@dataclass(frozen=True, slots=True, eq=False)
class Run:
    """A parsed, valid run for one subset, as parallel numpy arrays (one row per retrieved doc).

    `qids` and `docids` are numpy arrays of Python str (dtype object), `scores` float64.
    Row order is not significant: scoring orders by score descending, then docid descending,
    as trec_eval does. Readers keep only the top `keep_depth` documents of each query.
    """

    qids: "np.ndarray"
    docids: "np.ndarray"
    scores: "np.ndarray"
    tag: str = ""

    def __len__(self) -> int:
        return len(self.qids)


@dataclass(frozen=True, slots=True, eq=False)
class Qrels:
    """Judgments for one subset: qid -> {docid: integer label}. Judged non-relevant rows
    (label 0, or negative) are kept: they matter for Judged@k and define the query set."""

    judgments: dict[str, dict[str, int]]

    @property
    def qids(self) -> list[str]:
        return list(self.judgments)

    def __len__(self) -> int:
        return sum(len(docs) for docs in self.judgments.values())


class InputError(ValueError):
    """A qrels, topics or run file that cannot be used; `problems` says where and why."""

    def __init__(self, problems: "list[Problem] | tuple[Problem, ...]"):
        self.problems = tuple(problems)
        super().__init__("; ".join(str(p) for p in self.problems[:5]))
