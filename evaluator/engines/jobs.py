"""What a scoring job is, how it is scored, and what it found: plain records the command line
and the platform hand to `evaluator.engines.parallel`, and it hands back. No numpy here, so the
command line can plan jobs and refuse a bad command line before it imports numpy.
"""
from __future__ import annotations

import os
from dataclasses import dataclass

from ..records import Problem, SubsetResult, ValidationReport


@dataclass(frozen=True, slots=True)
class Job:
    """One language of a submission, as file paths (paths, not open files, so a job is a
    few bytes to send to a worker). Without a run, only the qrels and topics are checked;
    without qrels, the run is validated but not scored."""

    subset: str
    qrels: str | None
    run: str | None = None
    topics: str | None = None
    judged: tuple[str, ...] = ()  # earlier rounds' qrels: their documents are removed from the run (residual.py)

    def run_bytes(self) -> int:
        """The run file's size on disk; 0 without a run or when it cannot be read."""
        try:
            return os.path.getsize(self.run) if self.run else 0
        except OSError:
            return 0  # reading it will say what is wrong


@dataclass(frozen=True, slots=True)
class Scoring:
    """How every job is validated and scored (the arguments of Evaluator and read_run)."""

    metrics: tuple[str, ...]
    relevance_level: int = 1
    gain: str = "label"
    depth: int = 100
    max_depth: int = 1000
    docid_pattern: str | None = None
    per_query: bool = True  # False: results carry means only (less to compute and to send back)
    strict: bool = True  # False: what trec_eval reads, with warnings (see read_run, read_qrels)
    check: bool = False  # recompute with pytrec_eval (evaluator.engines.check)
    documents: str | None = None  # the collection's document list (io/documents.py): unknown docids are checked
    refuse_unknown: bool = True  # an unknown docid is an error at its line; False: one warning


@dataclass(frozen=True, slots=True)
class Outcome:
    """What one job found: problems with its qrels and topics, the run's report (None
    without a run) and its scores (None when anything it needs was rejected)."""

    subset: str
    qrels_errors: tuple[Problem, ...] = ()
    topics_errors: tuple[Problem, ...] = ()
    report: ValidationReport | None = None
    result: SubsetResult | None = None
    qrels_warnings: tuple[Problem, ...] = ()
    checked: tuple[Problem, ...] = ()  # what `--check` found (evaluator.engines.check)

    @property
    def warnings(self) -> tuple[Problem, ...]:
        """Every warning: qrels, run, how the run's queries met the judged ones, the check."""
        return (*self.qrels_warnings, *(self.report.warnings if self.report else ()),
                *(self.result.warnings if self.result else ()), *(p for p in self.checked if p.severity == "warning"))

    @property
    def errors(self) -> tuple[Problem, ...]:
        """Every error found in the job's files (qrels, topics, then run) and by the check."""
        return (*self.qrels_errors, *self.topics_errors, *(self.report.errors if self.report else ()),
                *(p for p in self.checked if p.severity == "error"))
