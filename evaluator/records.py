"""Small immutable records shared by the whole evaluator.

Errors and warnings are data (`Problem`), never bare strings: the CLI prints them,
the platform shows them next to the upload, tests compare their codes.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    import numpy as np
    import pyarrow as pa

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

    def as_dict(self) -> dict[str, Any]:
        return {"file": self.file, "line": self.line, "column": self.column,
                "code": self.code, "message": self.message}

    @property
    def where(self) -> str:
        """`file:line:column`, as far as known."""
        where = self.file
        if self.line is not None:
            where += f":{self.line}"
            if self.column is not None:
                where += f":{self.column}"
        return where

    @property
    def for_people(self) -> str:
        """Where and what, without the code (participants read this; scripts read `as_dict`)."""
        return f"{self.where}: {self.message}"

    def __str__(self) -> str:
        return f"{self.where}: {self.severity}: {self.message} [{self.code}]"


@dataclass(frozen=True, slots=True)
class ValidationReport:
    """The outcome of validating one file: at most MAX_PROBLEMS errors are collected.

    `truncated` means reading stopped before the end of the file (at the problem limit
    or the depth limit), so there may be more problems than `errors` lists."""

    file: str
    errors: tuple[Problem, ...] = ()
    warnings: tuple[Problem, ...] = ()
    lines: int = 0
    queries: int = 0
    truncated: bool = False

    @property
    def ok(self) -> bool:
        return not self.errors

    @property
    def problem_count(self) -> str:
        """"3" or "25+": the true total when the whole file was read, else a lower bound."""
        return f"{len(self.errors)}+" if self.truncated else str(len(self.errors))

    def as_dict(self) -> dict[str, Any]:
        return {"file": self.file, "ok": self.ok, "lines": self.lines, "queries": self.queries,
                "problem_count": self.problem_count, "truncated": self.truncated,
                "errors": [p.as_dict() for p in self.errors],
                "warnings": [p.as_dict() for p in self.warnings]}


@dataclass(frozen=True, slots=True)
class SubsetResult:
    """Scores of one run on one subset: the mean of each metric over every judged query
    (a query the run omits counts 0), and each query's value."""

    subset: str
    means: dict[str, float]
    per_query: dict[str, dict[str, float]] = field(default_factory=dict)  # metric -> qid -> value
    warnings: tuple[Problem, ...] = ()  # how the run's queries met the judged ones
    removed: dict[str, list[str]] = field(default_factory=dict)  # residual scoring: qid -> docids removed


class Run:
    """A parsed, valid run for one subset: one row per retrieved document.

    `qids` and `docids` read as numpy arrays of Python str (dtype object), `scores` as
    float64. Row order is not significant: scoring orders by score descending, then docid
    descending, as trec_eval does. Readers keep only the top `keep_depth` documents of each
    query and build the run from columns (`Run.from_columns`: query codes into a small qid
    table, docids as Arrow strings), so scoring never makes a Python str per row; the
    object arrays are made on first use, for callers that want them. From the compiled
    reader the docids are `io.texts.Texts` with their 64-bit hashes (`hashes`), which the
    scorer matches to judgments without pyarrow; `docid_array()` is Arrow either way.
    """

    __slots__ = ("_qids", "_docids", "_names", "_codes", "_docid_array", "_docid_column", "hashes", "scores", "tag")

    def __init__(self, qids: np.ndarray | None, docids: np.ndarray | None, scores: np.ndarray, tag: str = ""):
        self._qids, self._docids, self.scores, self.tag = qids, docids, scores, tag
        self._names: np.ndarray | None = None
        self._codes: np.ndarray | None = None
        self._docid_array: pa.Array | None = None
        self._docid_column: Any = None
        self.hashes: np.ndarray | None = None  # validation_fast.docid_hashes of the docids, where known

    @classmethod
    def from_columns(cls, *, names: "np.ndarray", codes: "np.ndarray", docids: Any,
                     scores: "np.ndarray", tag: str = "", hashes: "np.ndarray | None" = None) -> "Run":
        """Row i has qid `names[codes[i]]`, docid `docids[i]` (an Arrow string array, or
        `io.texts.Texts`), `scores[i]` and, when given, the docid's hash `hashes[i]`."""
        run = cls(None, None, scores, tag)
        run._names, run._codes, run._docid_column, run.hashes = names, codes, docids, hashes
        return run

    @property
    def qids(self) -> np.ndarray:
        if self._qids is None:
            names, codes = self.query_codes()
            self._qids = names[codes]
        return self._qids

    @property
    def docids(self) -> np.ndarray:
        if self._docids is None:
            self._docids = self.docid_array().to_numpy(zero_copy_only=False)
        return self._docids

    def query_codes(self) -> tuple[np.ndarray, np.ndarray]:
        """(distinct qids, each row's index into them)."""
        if self._names is None or self._codes is None:
            import numpy as np
            import pyarrow.compute as pc

            from .io.columns import numbers, strings

            encoded = pc.dictionary_encode(strings(self._qids))
            self._names = np.array(encoded.dictionary.to_pylist(), dtype=object)
            self._codes = numbers(encoded.indices)
        return self._names, self._codes

    def docid_array(self) -> pa.Array:
        """The docids as an Arrow string array."""
        if self._docid_array is None:
            from .io.columns import strings
            from .io.texts import arrow

            self._docid_array = strings(self._docids) if self._docid_column is None else arrow(self._docid_column)
        return self._docid_array

    def docid_column(self) -> Any:
        """The docids as the reader gave them: `io.texts.Texts`, or an Arrow string array."""
        return self.docid_array() if self._docid_column is None else self._docid_column

    def __len__(self) -> int:
        return len(self.scores)

    def __repr__(self) -> str:
        return f"Run({len(self)} rows, tag={self.tag!r})"


@dataclass(frozen=True, slots=True)
class JudgedColumns:
    """Qrels as columns, one row per judgment: `owner[i]` indexes `qids` (in order of first
    appearance), `docids` is an Arrow string array (or `io.texts.Texts` from the compiled
    reader, with `hashes`, their validation_fast.docid_hashes), `labels` int64."""

    qids: list[str]
    owner: np.ndarray
    docids: Any
    labels: np.ndarray
    hashes: np.ndarray | None = None


class Qrels:
    """Judgments for one subset: qid -> {docid: integer label}. Judged non-relevant rows
    (label 0, or negative) are kept: they matter for Judged@k and define the query set.

    Readers build it from columns (`Qrels(columns=...)`), which is all scoring needs; the
    dict of dicts is made on first use of `judgments`."""

    __slots__ = ("_judgments", "_columns", "warnings")

    def __init__(self, judgments: dict[str, dict[str, int]] | None = None, *,
                 columns: JudgedColumns | None = None, warnings: tuple[Problem, ...] = ()):
        if (judgments is None) == (columns is None):
            raise TypeError("give either judgments or columns")
        self._judgments, self._columns = judgments, columns
        self.warnings = warnings  # what the reader skipped or fixed (a BOM, comment lines)

    def max_label(self) -> int:
        """The largest label (0 without judgments), read from whichever form is held."""
        if self._judgments is not None:
            return max((label for docs in self._judgments.values() for label in docs.values()), default=0)
        labels = self.columns.labels
        return int(labels.max()) if len(labels) else 0

    @property
    def judgments(self) -> dict[str, dict[str, int]]:
        if self._judgments is None:
            import numpy as np

            from .io.texts import take_rows

            c = self.columns  # stored: there are no judgments without columns
            order = np.argsort(c.owner, kind="stable")
            bounds = np.searchsorted(c.owner[order], np.arange(len(c.qids) + 1)).tolist()
            docids, labels = take_rows(c.docids, order).to_pylist(), c.labels[order].tolist()
            self._judgments = {q: dict(zip(docids[a:b], labels[a:b], strict=True))
                               for q, a, b in zip(c.qids, bounds[:-1], bounds[1:], strict=True)}
        return self._judgments

    @property
    def columns(self) -> JudgedColumns:
        if self._columns is None:
            from itertools import chain

            import numpy as np

            from .io.columns import strings

            j = self.judgments  # stored: there are no columns without judgments
            sizes = np.fromiter(map(len, j.values()), np.int64, len(j))
            total = int(sizes.sum())
            self._columns = JudgedColumns(
                list(j), np.repeat(np.arange(len(j), dtype=np.int64), sizes),
                strings(list(chain.from_iterable(j.values()))),
                np.fromiter(chain.from_iterable(d.values() for d in j.values()), np.int64, total))
        return self._columns

    @property
    def qids(self) -> list[str]:
        return self.columns.qids if self._judgments is None else list(self._judgments)

    def __len__(self) -> int:
        if self._judgments is None:
            return len(self.columns.labels)
        return sum(len(docs) for docs in self._judgments.values())


class InputError(ValueError):
    """A qrels, topics or run file that cannot be used; `problems` says where and why."""

    def __init__(self, problems: "list[Problem] | tuple[Problem, ...]"):
        self.problems = tuple(problems)
        super().__init__("; ".join(str(p) for p in self.problems[:5]))
