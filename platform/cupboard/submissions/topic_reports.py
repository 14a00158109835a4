"""Per-topic reports, as TREC sends its participants: a run's value on every topic of a
language beside the best, the median and the worst of all the phase's runs, for each of the
competition's measures; the figures themselves are `evaluator.per_topic`'s.

Which runs count (said on the page): every scored submission of the phase that is not
disqualified, teams' and baselines' alike, scored with the phase's current judgments, on the
languages it has a run for (a language left out scores 0 on every topic, which is no
system's value). Who sees a report is the Viewer's answer (`sees_topic_report`: organizers
any run; a team its own, once the phase's judgments are public); this module reads only
what it allows, in the subsets the viewer sees, rounded as the viewer's pages are.
"""
from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from functools import partial

import orjson
from django.conf import settings
from django.core.cache import cache
from django.db.models import QuerySet, TextField
from django.db.models.functions import Cast

from cupboard.competitions.models import Phase, Subset
from cupboard.competitions.selectors import current_qrels_release, phase_subsets
from cupboard.competitions.viewer import Viewer
from cupboard.csvexport import csv_text, number_cells
from evaluator.per_topic import TopicRange, by_difference, topic_key, topic_ranges

from .models import QueryScores, RunFile, Submission

CSV_COLUMNS = ("language", "topic", "measure", "run", "best", "median", "worst")


@dataclass(frozen=True, slots=True)
class TopicRow:
    topic: str
    value: float
    best: float
    median: float
    worst: float

    @property
    def difference(self) -> float:
        return self.value - self.median


@dataclass(frozen=True, slots=True)
class TopicReport:
    """One run on one subset and measure: `rows` in the report's order (largest gain over the
    median first), `runs` the number of runs counted."""

    subset: Subset
    metric: str
    runs: int
    rows: list[TopicRow]

    @property
    def above(self) -> int:
        return sum(row.difference > 0 for row in self.rows)

    @property
    def below(self) -> int:
        return sum(row.difference < 0 for row in self.rows)


def _counted(phase: Phase) -> QuerySet:
    """The phase's runs that count (see the module docstring), on whichever subsets they ran."""
    return Submission.objects.filter(phase=phase, status=Submission.Status.SCORED, disqualified=False,
                                     qrels_release=current_qrels_release(phase))


def counted_runs(phase: Phase, subset: Subset):
    """The submissions the best, median and worst are over on `subset` (see the module docstring)."""
    return _counted(phase).filter(run_files__subset=subset)


def _counted_by_subset(phase: Phase) -> dict[int, list[tuple[int, datetime | None]]]:
    """{subset id: [(id, scored_at)]} of the runs counted on each subset (`counted_runs` of
    every subset at once), in one query."""
    found: dict[int, list[tuple[int, datetime | None]]] = {}
    for pk, scored_at, subset_id in _counted(phase).values_list("pk", "scored_at", "run_files__subset_id"):
        if subset_id is not None:
            found.setdefault(subset_id, []).append((pk, scored_at))
    return found


def has_report(viewer: Viewer, submission: Submission, *, releases: dict[int, int | None] | None = None) -> bool:
    """Whether the viewer may open the run's report now (`Viewer.sees_topic_report`) and it has
    one: scored on the phase's current judgments (a run waiting for a re-score would be set
    against runs scored on other judgments). `releases` keeps each phase's current judgments
    across the calls of one list."""
    if submission.status != Submission.Status.SCORED or not viewer.sees_topic_report(submission):
        return False
    releases = {} if releases is None else releases
    if submission.phase_id not in releases:
        release = current_qrels_release(submission.phase)
        releases[submission.phase_id] = release.pk if release else None
    return submission.qrels_release_id is not None and submission.qrels_release_id == releases[submission.phase_id]


def report_subsets(viewer: Viewer, submission: Submission) -> list[Subset]:
    """The phase's subsets the viewer sees that the run has a run file for, in column order."""
    ran = set(submission.run_files.values_list("subset_id", flat=True))
    return [s for s in phase_subsets(submission.phase, viewer.subsets) if s.pk in ran]


def _stored_values(rows: QuerySet, by: str = "submission_id") -> dict[int, dict[str, dict[str, float]]]:
    """{submission id (or the column `by`): {metric: {qid: value}}} of QueryScores `rows`: each document read as
    text and decoded once, with orjson (Python's json, through the JSON field, took most of
    a phase-wide CSV: docs/benchmarks.md, "Per-topic CSVs")."""
    texts = rows.annotate(text=Cast("values", TextField())).values_list(by, "text")
    return {key: orjson.loads(text) for key, text in texts}


@dataclass(frozen=True, slots=True)
class SubsetRanges:
    """The best, median and worst of the runs counted on one subset: {metric: {qid: range}}."""

    runs: int
    by_metric: dict[str, dict[str, TopicRange]]


def _cache_key(kind: str, phase: Phase, subset: Subset, runs: list[tuple]) -> str:
    """A key naming everything an entry depends on: `runs`, the runs it is over, each as (id,
    the instant it was last scored, ...), and the competition's measures. A run's values never
    change without a new `scored_at` (a re-score stores new ones), so an entry is never stale
    and a new scoring, re-score, disqualification or qrels release simply makes a new key;
    entries are shared by every viewer (what is cached holds no one's rounding)."""
    identity = repr(([(pk, at and at.timestamp(), *rest) for pk, at, *rest in runs], phase.competition.metrics))
    return f"per-topic:{kind}:{phase.pk}:{subset.pk}:" + hashlib.sha256(identity.encode()).hexdigest()


def subset_ranges(phase: Phase, subset: Subset, *, counted: list[tuple[int, datetime | None]] | None = None,
                  values: dict[int, dict[str, dict[str, float]]] | None = None) -> SubsetRanges:
    """The ranges on `subset` over the runs counted there ([(id, scored_at)], read when not
    given), kept in Django's cache: every run's report sets itself against the same ranges,
    which took reading every run's values. `values` ({id: values} of those runs), when the
    caller has them, saves reading them again on a miss."""
    if counted is None:
        counted = list(counted_runs(phase, subset).values_list("pk", "scored_at"))

    def build() -> SubsetRanges:
        found = values if values is not None else _stored_values(
            QueryScores.objects.filter(submission__in=[pk for pk, _ in counted], subset=subset))
        documents = [found[pk] for pk, _ in counted if pk in found]
        return SubsetRanges(runs=len(documents), by_metric={
            metric: topic_ranges(document.get(metric, {}) for document in documents)
            for metric in phase.competition.metrics})
    key = _cache_key("ranges", phase, subset, sorted(counted))
    return cache.get_or_set(key, build, settings.CUPBOARD_LEADERBOARD_CACHE_SECONDS)


def _rows(viewer: Viewer, values: dict[str, float], ranges: dict[str, TopicRange]) -> list[TopicRow]:
    """The report's rows, ordered on the exact values and then rounded for the viewer."""
    r = viewer.rounded
    return [TopicRow(topic=qid, value=r(values[qid]), best=r(ranges[qid].best), median=r(ranges[qid].median),
                     worst=r(ranges[qid].worst))
            for qid in by_difference(values, ranges)]


def topic_reports(viewer: Viewer, submission: Submission, subset: Subset) -> list[TopicReport]:
    """The run's report on `subset`, one per competition measure. Call it only where the viewer
    `sees_topic_report(submission)`, on a subset of `report_subsets`. A few queries, however
    many runs the phase has; the other runs' values only when the ranges are not cached."""
    own = _stored_values(QueryScores.objects.filter(submission=submission, subset=subset))
    return _reports(viewer, subset, subset_ranges(submission.phase, subset), own.get(submission.pk, {}))


def _reports(viewer: Viewer, subset: Subset, ranges: SubsetRanges, own: dict[str, dict[str, float]]) -> list[TopicReport]:
    return [TopicReport(subset=subset, metric=metric, runs=ranges.runs,
                        rows=_rows(viewer, own.get(metric, {}), ranges.by_metric.get(metric, {})))
            for metric in viewer.competition.metrics]


def _number(value: float | None) -> str:
    return "" if value is None else repr(value)


def run_topics_csv(viewer: Viewer, submission: Submission) -> str:
    """The run's reports on every subset the viewer may see and measure, one CSV (`CSV_COLUMNS`),
    in the report's order within each language and measure. A few queries in all, not a few
    per language."""
    phase, lines = submission.phase, [list(CSV_COLUMNS)]
    counted = _counted_by_subset(phase)
    own = _stored_values(QueryScores.objects.filter(submission=submission), by="subset_id")
    for subset in report_subsets(viewer, submission):
        ranges = subset_ranges(phase, subset, counted=counted.get(subset.pk, []))
        for report in _reports(viewer, subset, ranges, own.get(subset.pk, {})):
            lines += [[subset.code, row.topic, report.metric, _number(row.value), _number(row.best),
                       _number(row.median), _number(row.worst)] for row in report.rows]
    return csv_text(lines)


def _run_label(submission: Submission) -> str:
    return f"run {submission.pk}: {submission}" + (" (disqualified)" if submission.disqualified else "")


def phase_topics_csv(phase: Phase) -> Iterator[str]:
    """For the organizers: every scored run's per-topic values on the phase's current judgments,
    one column per run, a row per language, topic and measure with the best, median and worst
    of the runs counted (disqualified runs have a column, marked, but do not count). Every
    subset, hidden ones too, at full precision; written a language at a time, each language's
    rows kept in Django's cache for as long as its runs stay the same (25 MB on TREC's size,
    which took seconds to write: docs/benchmarks.md, "Per-topic CSVs"); the header, which
    names teams and methods, is written afresh."""
    runs = list(Submission.objects.filter(phase=phase, status=Submission.Status.SCORED,
                                          qrels_release=current_qrels_release(phase))
                .select_related("team").order_by("created_at", "pk"))
    yield csv_text([["language", "topic", "measure", "best", "median", "worst", *map(_run_label, runs)]])
    ran = set(RunFile.objects.filter(submission__in=runs).values_list("subset_id", "submission_id"))
    for subset in phase_subsets(phase, list(phase.competition.subsets.order_by("position", "code"))):
        columns = [(run.pk, run.scored_at, run.disqualified, (subset.pk, run.pk) in ran) for run in runs]
        yield cache.get_or_set(_cache_key("csv", phase, subset, columns), partial(_phase_csv, phase, subset, runs, ran),
                               settings.CUPBOARD_LEADERBOARD_CACHE_SECONDS)


def _phase_csv(phase: Phase, subset: Subset, runs: list[Submission], ran: set[tuple[int, int]]) -> str:
    """One language's rows of the phase-wide CSV, each measure's in turn."""
    stored = _stored_values(QueryScores.objects.filter(submission__in=runs, subset=subset))
    values = {pk: found for pk, found in stored.items() if (subset.pk, pk) in ran}
    counted = [(run.pk, run.scored_at) for run in runs if (subset.pk, run.pk) in ran and not run.disqualified]
    ranges = subset_ranges(phase, subset, counted=counted, values=values)
    return "".join(_phase_rows(subset, metric, ranges.by_metric.get(metric, {}),
                               [values.get(run.pk, {}).get(metric, {}) for run in runs])
                   for metric in phase.competition.metrics)


def _phase_rows(subset: Subset, metric: str, ranges: dict[str, TopicRange], columns: list[dict[str, float]]) -> str:
    """One language's and measure's rows, topics in reading order: the leading cells as
    `csv_text` writes them, then each run's values turned to text a column at a time
    (`number_cells`; 1.4 million cells on TREC's size)."""
    topics = sorted(ranges, key=topic_key)
    cells = [number_cells([column.get(qid) for qid in topics]) for column in columns]
    lines = []
    for index, qid in enumerate(topics):
        found = ranges[qid]
        head = csv_text([[subset.code, qid, metric, _number(found.best), _number(found.median), _number(found.worst)]])
        lines.append(",".join([head[:-2], *(column[index] for column in cells)]) + "\r\n")
    return "".join(lines)


def removed_documents(submission: Submission, subset: Subset) -> dict[str, list[str]]:
    """{qid: docids} a residual phase removed from the run on `subset` before scoring."""
    stored = QueryScores.objects.filter(submission=submission, subset=subset).values_list("removed", flat=True).first()
    return stored or {}


def residual_phase_names(phase: Phase) -> list[str]:
    """The names of the earlier phases whose judgments a residual phase removes, in its order."""
    names = dict(phase.competition.phases.filter(slug__in=phase.residual_of or ()).values_list("slug", "name"))
    return [names.get(slug, slug) for slug in phase.residual_of or ()]


def residual_note(submission: Submission) -> dict | None:
    """How many documents a residual phase removed from the run before scoring, and the phases
    whose judgments removed them (the submission page's note); None elsewhere."""
    if not submission.phase.residual_of:
        return None
    count = sum(len(docids) for removed in submission.query_scores.values_list("removed", flat=True)
                for docids in (removed or {}).values())
    return {"count": count, "phases": residual_phase_names(submission.phase)}
