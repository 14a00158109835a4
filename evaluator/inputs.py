"""Qrels and runs from what Python users hold: a path, a dict, or a pandas DataFrame.

The Python API (`evaluator.api`) scores with the same readers and Evaluator as the CLI;
this module only turns a dict ({qid: {docid: label}} / {qid: {docid: score}}) or a
DataFrame into the evaluator's `Qrels` and `Run`. DataFrames may use ir_measures' columns
(query_id, doc_id, relevance / score) or PyTerrier's (qid, docno, label / score); ids are
read as strings, as a TREC file's are. A bad frame raises InputError naming the problem.
"""
from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeGuard, Union

from .measures import UNLIMITED
from .records import InputError, Problem, Qrels, Run

if TYPE_CHECKING:
    import pandas as pd

QrelsInput = Union[str, "os.PathLike[str]", Mapping[str, Mapping[str, int]], "pd.DataFrame", Qrels]
RunInput = Union[str, "os.PathLike[str]", Mapping[str, Mapping[str, float]], "pd.DataFrame", Run]

# (query, document, value) column names, ir_measures' first, then PyTerrier's
QRELS_COLUMNS = (("query_id", "doc_id", "relevance"), ("qid", "docno", "label"))
RUN_COLUMNS = (("query_id", "doc_id", "score"), ("qid", "docno", "score"))
FRAME = "<DataFrame>"  # the "file" a DataFrame's problems are reported under


def _error(code: str, message: str, file: str = FRAME) -> InputError:
    return InputError([Problem(code, message, file)])


def _is_path(value: object) -> TypeGuard[str | os.PathLike[str]]:
    return isinstance(value, (str, os.PathLike))


def _is_frame(value: Any) -> bool:
    # no pandas import here: a caller holding a DataFrame has imported it already
    return type(value).__module__.startswith("pandas") and type(value).__name__ == "DataFrame"


def _columns(frame: pd.DataFrame, conventions: tuple[tuple[str, str, str], ...], what: str) -> tuple[str, str, str]:
    """The first convention whose three columns the frame has, else a clear error."""
    for names in conventions:
        if all(name in frame.columns for name in names):
            return names
    wanted = " or ".join(", ".join(names) for names in conventions)
    raise _error("missing-column", f"a {what} DataFrame needs the columns {wanted}; "
                                   f"it has {', '.join(map(str, frame.columns)) or 'none'}")


def _no_repeats(frame: pd.DataFrame, query: str, doc: str, what: str) -> None:
    """trec_eval refuses a document listed twice for one query; so does this."""
    repeated = frame.duplicated([query, doc])
    if repeated.any():
        row = frame[repeated].iloc[0]
        raise _error("duplicate-docid", f"the {what} DataFrame lists document {row[doc]!r} twice for query "
                                        f"{row[query]!r} (row {int(repeated.to_numpy().argmax())})")


def qrels_of(qrels: QrelsInput, *, strict: bool = False) -> Qrels:
    """Qrels from a path (read as `python -m evaluator score` reads it), a dict or a DataFrame."""
    if isinstance(qrels, Qrels):
        return qrels
    if _is_path(qrels):
        from .io.qrels import read_qrels

        return read_qrels(qrels, strict=strict)
    if _is_frame(qrels):
        frame: pd.DataFrame = qrels
        query, doc, label = _columns(frame, QRELS_COLUMNS, "qrels")
        _no_repeats(frame, query, doc, "qrels")
        labels = frame[label]
        if labels.dtype.kind not in "iub" and not (labels.dtype.kind == "f" and (labels % 1 == 0).all()):
            raise _error("bad-label", f"the qrels DataFrame's {label!r} column must hold integer labels, "
                                      f"not {labels.dtype}")
        judgments: dict[str, dict[str, int]] = {}
        for q, d, value in zip(frame[query].astype(str), frame[doc].astype(str), labels.astype("int64"),
                               strict=True):
            judgments.setdefault(q, {})[d] = int(value)
        return Qrels(judgments)
    if isinstance(qrels, Mapping):
        try:
            return Qrels({str(q): {str(d): int(label) for d, label in docs.items()} for q, docs in qrels.items()})
        except (TypeError, ValueError, AttributeError) as exc:
            raise _error("bad-label", f"qrels as a dict are {{qid: {{docid: integer label}}}} ({exc})",
                         "<dict>") from None
    raise TypeError(f"qrels must be a path, a dict or a pandas DataFrame, not {type(qrels).__name__}")


def run_of(run: RunInput, *, depth: int = UNLIMITED, strict: bool = False) -> Run:
    """A Run from a path (its top `depth` per query kept, as the CLI reads it), a dict or a DataFrame."""
    import numpy as np

    if isinstance(run, Run):
        return run
    if _is_path(run):
        from .io.runs import read_run

        parsed, report = read_run(run, max_depth=UNLIMITED, keep_depth=depth, strict=strict)
        if parsed is None:
            raise InputError(report.errors)
        return parsed
    if _is_frame(run):
        frame: pd.DataFrame = run
        query, doc, score = _columns(frame, RUN_COLUMNS, "run")
        _no_repeats(frame, query, doc, "run")
        try:
            scores = frame[score].to_numpy(dtype=np.float64)
        except (TypeError, ValueError):
            raise _error("bad-score", f"the run DataFrame's {score!r} column must hold numbers") from None
        return Run(frame[query].astype(str).to_numpy(dtype=object), frame[doc].astype(str).to_numpy(dtype=object),
                   scores)
    if isinstance(run, Mapping):
        rows = [(str(q), str(d), s) for q, docs in run.items() for d, s in docs.items()]
        try:
            scores = np.array([s for _, _, s in rows], dtype=np.float64)
        except (TypeError, ValueError):
            raise _error("bad-score", "a run as a dict is {qid: {docid: numeric score}}", "<dict>") from None
        return Run(np.array([q for q, _, _ in rows], dtype=object), np.array([d for _, d, _ in rows], dtype=object),
                   scores)
    raise TypeError(f"a run must be a path, a dict or a pandas DataFrame, not {type(run).__name__}")
