"""The subsets of one submission scored side by side, as the CLI does (`evaluator.engines.parallel`).

Each subset is one job: read its topics, read and validate its run, read its qrels, score.
Everything a job needs from the database is read first, in the worker process; the jobs
then run in processes forked from it, which only open stored files and compute, never
touch the database connection they inherit, and end with `os._exit` (multiprocessing's
fork), so that connection is never closed under the parent. Each dies with the worker. Only each subset's result
travels back. The parent keeps its heartbeat thread beating and writes progress as each
job finishes.

How many processes: CUPBOARD_SCORING_PROCESSES, by default the cores this worker may use
divided by the number of Celery worker processes on the host (CUPBOARD_WORKER_CONCURRENCY),
at least 1; with 1 the jobs run in the worker process itself, one after another.
"""
from __future__ import annotations

import ctypes
import multiprocessing
import os
import signal
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial

from django.conf import settings

from cupboard.competitions.document_lists import current_document_lists
from cupboard.competitions.models import Competition, DocumentList, QrelsFile, Subset, TopicSet
from cupboard.competitions.selectors import earlier_judgments, qrels_files
from cupboard.competitions.topic_variants import one_per_subset
from evaluator.benchmarks import get_benchmark
from evaluator.engines.parallel import map_forked
from evaluator.engines.scoring import Evaluator
from evaluator.io.qrels import read_qrels
from evaluator.records import Qrels
from evaluator.residual import residual_result

from . import readcache
from .models import JUDGED_DEPTH, JUDGED_METRIC, RunFile
from .runfiles import document_check, read_scored_run, topic_set_ids


class RunRejected(Exception):
    """A stored run file no longer validates (e.g. the competition's document id rule changed): the team must resubmit."""


@dataclass(frozen=True)
class SubsetJob:
    """One subset of a submission with its rows already loaded (no query left to run)."""

    subset: Subset
    qrels_file: QrelsFile
    run_file: RunFile | None
    topic_set: TopicSet | None
    judged: tuple[QrelsFile, ...] = ()  # a residual phase's earlier judgments of this subset
    documents: DocumentList | None = None  # the subset's document list, checked as at upload
    refuse_unknown: bool = True  # the phase's unknown_documents


def subset_jobs(*, submission, release) -> tuple[list[SubsetJob], list[Subset]]:
    """(jobs, skipped subsets) of `submission` against the qrels `release`: one job per qrels
    file; a subset without a run is a job (it counts 0) unless the competition leaves such
    averages incomplete, then it is skipped. Scoring and the second engine's check share it."""
    competition = submission.phase.competition
    runs = {rf.subset.code: rf for rf in submission.run_files.select_related("subset")}
    topic_sets = one_per_subset(TopicSet.objects.filter(phase=submission.phase), competition)
    judged = earlier_judgments(submission.phase)
    refuse = submission.phase.unknown_documents == "refuse"
    document_lists = current_document_lists(competition)
    jobs, skipped = [], []
    for code, qrels_file in sorted(qrels_files(release).items()):
        run_file = runs.get(code)
        if run_file is None and competition.missing_subset == Competition.MissingSubset.INCOMPLETE:
            skipped.append(qrels_file.subset)
            continue
        jobs.append(SubsetJob(subset=qrels_file.subset, qrels_file=qrels_file, run_file=run_file,
                              topic_set=topic_sets.get(qrels_file.subset_id), judged=tuple(judged.get(code, ())),
                              documents=document_lists.get(qrels_file.subset_id), refuse_unknown=refuse))
    return jobs, skipped


def scoring_processes() -> int:
    """The worker's budget of processes for one submission (see the module docstring)."""
    from evaluator.engines.parallel import usable_cores

    configured = settings.CUPBOARD_SCORING_PROCESSES
    if configured > 0:
        return configured
    return max(1, usable_cores() // max(1, settings.CUPBOARD_WORKER_CONCURRENCY))


def score_job(job: SubsetJob, competition: Competition) -> tuple:
    """(the job's SubsetResult, seconds it took): no run scores 0 on every query. The time is
    the operator's scoring time per subset (QueryScores.seconds, the metrics). Raises RunRejected."""
    started = time.monotonic()
    run, removed = job_residual_run(job, competition)
    result = _evaluator(job, competition=competition).score(run, subset=job.subset.code)
    if removed is not None and job.run_file is not None:
        result = residual_result(result, removed, file=job.run_file.original_name)
    return result, time.monotonic() - started


def job_run(job: SubsetJob, competition: Competition):
    """The job's stored run as it is scored (None: no run). Raises RunRejected."""
    return job_residual_run(job, competition)[0]


def job_residual_run(job: SubsetJob, competition: Competition):
    """(the job's stored run, read and validated as at upload, what a residual phase removed
    from it or None). Raises RunRejected.

    Its query ids were checked against the topics at upload; they are not checked again: a
    later topics version that drops a query leaves that query's lines unscored (`job_qrels`),
    it does not reject the run (the team did nothing wrong)."""
    if job.run_file is None:
        return None, None
    with job.run_file.file.open("rb") as stored:
        documents = document_check(job.documents, refuse=job.refuse_unknown)
        run, report, removed = read_scored_run(source=stored, name=job.run_file.original_name,
                                               competition=competition, topics=None, judged=job.judged,
                                               documents=documents)
    if run is None:
        reasons = "; ".join(p.for_people for p in report.errors[:5])
        raise RunRejected(f"{job.run_file.original_name} no longer validates: {reasons}")
    return run, removed


def scored_metrics(competition: Competition, depth: int) -> list[str]:
    """The competition's metrics, and Judged@10 for the pool diagnostics (judging/): computed
    in the same pass, stored apart from the scores (`scoring._store`); not where fewer than
    10 documents are scored (judging/ shows no share then)."""
    judged = [JUDGED_METRIC] if JUDGED_DEPTH <= depth else []
    return list(dict.fromkeys([*competition.metrics, *judged]))


def job_qrels(job: SubsetJob) -> Qrels:
    """The judgments a subset is scored on: those of the queries in its topics, so the board is
    scored on the phase's current topics (a query a topics version drops no longer counts,
    one judged but never a topic never did); all of them where the phase has no topics for it."""
    with job.qrels_file.file.open("rb") as stored:
        qrels = read_qrels(stored, name=job.qrels_file.original_name)
    if job.topic_set is None:
        return qrels
    topics = topic_set_ids(job.topic_set)
    if all(qid in topics for qid in qrels.qids):
        return qrels
    return Qrels({qid: docs for qid, docs in qrels.judgments.items() if qid in topics}, warnings=qrels.warnings)


def _evaluator(job: SubsetJob, *, competition: Competition) -> Evaluator:
    """An Evaluator for one qrels file and topics, built once per process for their content and
    settings (forked scorers inherit the worker's, so a warm worker's processes build none)."""
    gain = get_benchmark(competition.benchmark).gain
    depth = competition.scored_depth()
    metrics = scored_metrics(competition, depth)

    def load() -> Evaluator:
        return Evaluator(job_qrels(job), metrics, relevance_level=competition.relevance_level, gain=gain, depth=depth)
    qrels_file, topics = job.qrels_file, job.topic_set
    key = (qrels_file.sha256, qrels_file.file.name, topics and topics.sha256, tuple(metrics),
           competition.relevance_level, gain, depth)
    return readcache.evaluators.get(key, load)


# The jobs of the submission being scored, inherited by the forked processes (fork copies
# them): a job then travels as its index, never pickled with its model instances.
_JOBS: list[SubsetJob] = []
_COMPETITION: list[Competition] = []


@contextmanager
def may_have_children() -> Iterator[None]:
    """A Celery prefork child is marked daemonic, and multiprocessing refuses children to a
    daemonic process, lest they outlive it. Ours cannot: the pool is joined before the task
    returns, and each of its processes is killed with its parent (`_die_with_parent`)."""
    config = multiprocessing.current_process()._config  # type: ignore[attr-defined]  # private: no API sets it
    daemon = config.get("daemon")
    config["daemon"] = False
    try:
        yield
    finally:
        config["daemon"] = daemon


def _die_with_parent(parent: int) -> None:
    """Linux: SIGKILL this pool process when the worker process dies (a kill, a hard time
    limit), so no idle scorer is left behind waiting for work forever."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # 1 = PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        return  # not Linux: the pool ends when its parent does, as without Celery
    if os.getppid() != parent:
        os._exit(1)  # the parent died before prctl took effect


def _score_inherited(index: int):
    return score_job(_JOBS[index], _COMPETITION[0])


def score_jobs(jobs: list[SubsetJob], *, competition: Competition, processes: int,
               done: Callable[[int, int], None]) -> list:
    """[(SubsetResult, seconds)] in the order of `jobs`; `done(finished, total)` after each, in this process.
    The processes are the evaluator's (`map_forked`, as the CLI scores); a RunRejected from a
    job is raised here."""
    processes = min(processes, len(jobs))
    if processes <= 1 or "fork" not in multiprocessing.get_all_start_methods():
        results = []
        for job in jobs:
            results.append(score_job(job, competition))
            done(len(results), len(jobs))
        return results
    _JOBS[:], _COMPETITION[:] = jobs, [competition]
    # Largest runs first, so the last jobs to start are small and the processes finish together.
    order = sorted(range(len(jobs)), key=lambda i: -_run_size(jobs[i]))
    try:
        with may_have_children():
            results = map_forked(_score_inherited, order, workers=processes,
                                 initializer=partial(_die_with_parent, os.getpid()),
                                 done=lambda _, finished: done(finished, len(jobs)))
    finally:
        _JOBS.clear()
        _COMPETITION.clear()
    by_index = dict(zip(order, results, strict=True))
    return [by_index[i] for i in range(len(jobs))]


def _run_size(job: SubsetJob) -> int:
    return job.run_file.size if job.run_file else 0
