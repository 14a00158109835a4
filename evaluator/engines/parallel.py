"""Validating and scoring a whole multi-language submission on every core.

The languages of a submission are independent, so each is one job: read its qrels and
topics, validate and read its run, score it. With more than one worker the jobs run in
forked processes: fork inherits the imported numpy and pyarrow (a worker starts without
importing them again), each worker parses its file on its own
thread, and only the small results (a ValidationReport and a SubsetResult per language)
travel back, never the parsed columns. `workers=1` does the same jobs in this process,
one after another; both give identical results (tests/evaluator/test_parallel.py).
"""
from __future__ import annotations

import multiprocessing
import os
import sys
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from typing import TypeVar

from ..io.documents import DocumentCheck, document_list
from ..io.qrels import read_qrels
from ..io.runs import keep_freed_memory, read_run
from ..io.topics import read_topics
from ..records import InputError, Problem, Qrels, SubsetResult
from ..residual import residual_keep_depth, residual_result, residual_run
from .jobs import Job as Job  # Job, Outcome and Scoring: the names callers import from here
from .jobs import Outcome as Outcome
from .jobs import Scoring as Scoring
from .scoring import Evaluator

T = TypeVar("T")
R = TypeVar("R")


def score_submission(jobs: Sequence[Job], *, scoring: Scoring, workers: int | None = None,
                     done: Callable[[Outcome, int, int], None] | None = None) -> dict[str, Outcome]:
    """Run every job, on `workers` processes (default: one per usable core, at most one per
    job); {subset: Outcome} in the order of `jobs`. `done(outcome, finished, total)` is
    called in this process as each job finishes, e.g. to draw progress."""
    if len({job.subset for job in jobs}) != len(jobs):
        raise ValueError("each subset may have only one job")
    workers = min(workers or usable_cores(), len(jobs))
    if scoring.documents is not None:
        document_list(scoring.documents)  # read once here: the workers inherit it
    outcomes: dict[str, Outcome] = {}
    if workers <= 1 or "fork" not in multiprocessing.get_all_start_methods():  # no fork on Windows
        for job in jobs:
            outcomes[job.subset] = score_job(job, scoring=scoring, threads=2)
            if done:
                done(outcomes[job.subset], len(outcomes), len(jobs))
        return outcomes
    # Largest runs first: the last jobs to start are then small and both workers finish together.
    ordered = sorted(jobs, key=Job.run_bytes, reverse=True)
    def finished(outcome: Outcome, count: int) -> None:
        if done:
            done(outcome, count, len(jobs))

    for outcome in map_forked(_score_alone, ordered, workers=workers, initializer=_start_worker, done=finished,
                              scoring=scoring):
        outcomes[outcome.subset] = outcome
    return {job.subset: outcomes[job.subset] for job in jobs}


def _score_alone(job: Job, scoring: Scoring) -> Outcome:
    return score_job(job, scoring=scoring, threads=1)


def map_forked(work: Callable[..., R], items: Sequence[T], *, workers: int,
               initializer: Callable[[], None] | None = None, done: Callable[[R, int], None] | None = None,
               **kwargs: object) -> list[R]:
    """[work(item, **kwargs)] for `items`, in their order, on `workers` processes forked from
    this one and started in the order of `items`. `done(result, finished)` is called in this
    process as each finishes. The first error of a job is raised here once the jobs already
    running have finished; the jobs not started yet are cancelled. The platform's scoring
    worker uses it too (cupboard/submissions/scoring_jobs.py)."""
    results: dict[int, R] = {}
    with ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("fork"),
                             initializer=initializer) as pool:
        futures: dict[Future[R], int] = {pool.submit(work, item, **kwargs): index for index, item in enumerate(items)}
        try:
            for future in as_completed(futures):
                results[futures[future]] = future.result()
                if done:
                    done(results[futures[future]], len(results))
        except BaseException:
            for future in futures:
                future.cancel()
            raise
    return [results[index] for index in range(len(items))]


def score_job(job: Job, *, scoring: Scoring, threads: int = 2) -> Outcome:
    """Read one language's files, validate its run, and score it when nothing was rejected.
    The run is validated even when its qrels or topics are not, so one pass lists every
    problem of every file."""
    evaluator: Evaluator | None = None
    qrels_errors: tuple[Problem, ...] = ()
    qrels_warnings: tuple[Problem, ...] = ()
    if job.qrels is not None:
        try:
            qrels = read_qrels(job.qrels, strict=scoring.strict)
            qrels_warnings = qrels.warnings
            evaluator = Evaluator(qrels, scoring.metrics, relevance_level=scoring.relevance_level,
                                  gain=scoring.gain, depth=scoring.depth)
        except InputError as exc:
            qrels_errors = exc.problems
    topics: dict[str, str] | None = None
    topics_errors: tuple[Problem, ...] = ()
    if job.topics is not None:
        try:
            topics = read_topics(job.topics)
        except InputError as exc:
            topics_errors = exc.problems
    if job.run is None:
        return Outcome(job.subset, qrels_errors, topics_errors)
    judged, judged_errors = _judged(job, scoring)
    keep_depth = residual_keep_depth(scoring.max_depth) if job.judged else scoring.depth
    documents = None if scoring.documents is None else \
        DocumentCheck(document_list(scoring.documents), refuse=scoring.refuse_unknown)
    run, report = read_run(job.run, topics=topics, docid_pattern=scoring.docid_pattern,
                           max_depth=scoring.max_depth, keep_depth=keep_depth, threads=threads,
                           strict=scoring.strict, documents=documents)
    result: SubsetResult | None = None
    checked: tuple[Problem, ...] = ()
    qrels_errors += judged_errors
    if run is not None and evaluator is not None and not topics_errors and not judged_errors:
        removed = None
        if job.judged:
            run, removed = residual_run(run, judged, sources=job.judged)
        result = evaluator.score(run, subset=job.subset, per_query=scoring.per_query, name=job.run)
        if removed is not None:
            result = residual_result(result, removed, file=job.run)
        if scoring.check:
            from .check import check_with_pytrec_eval

            checked = tuple(check_with_pytrec_eval(evaluator, qrels, run, file=job.run))
    return Outcome(job.subset, qrels_errors, topics_errors, report, result, qrels_warnings, checked)


def _judged(job: Job, scoring: Scoring) -> tuple[list[Qrels], tuple[Problem, ...]]:
    """The earlier rounds' qrels of a residual job, and their problems."""
    judged: list[Qrels] = []
    errors: list[Problem] = []
    for path in job.judged:
        try:
            judged.append(read_qrels(path, strict=scoring.strict))
        except InputError as exc:
            errors += exc.problems
    return judged, tuple(errors)


def usable_cores() -> int:
    """How many cores this process may run on: the default number of workers."""
    try:
        return len(os.sched_getaffinity(0))  # what this process may use (a container may pin it)
    except AttributeError:
        return os.cpu_count() or 1  # macOS has no sched_getaffinity


def _start_worker() -> None:
    """Allocator settings for a worker process, which reads files one after another and
    exits: glibc keeps what it frees for the next file (see `keep_freed_memory`), and
    Arrow's buffers come from jemalloc where pyarrow has it, which at depth 1000 peaks
    ~40 MB lower per worker than the default mimalloc, at the same speed. (Only where
    pyarrow is loaded already: the compiled reader's path does without it.)"""
    keep_freed_memory()
    pa = sys.modules.get("pyarrow")
    if pa is None:
        return
    try:
        pa.set_memory_pool(pa.jemalloc_memory_pool())
    except NotImplementedError:
        pass  # a pyarrow built without jemalloc: the default pool is as fast
