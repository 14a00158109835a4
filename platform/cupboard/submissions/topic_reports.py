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

from collections.abc import Iterator
from dataclasses import dataclass

from cupboard.competitions.models import Phase, Subset
from cupboard.competitions.selectors import current_qrels_release, phase_subsets
from cupboard.competitions.viewer import Viewer
from cupboard.csvexport import csv_text
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


def counted_runs(phase: Phase, subset: Subset):
    """The submissions the best, median and worst are over on `subset` (see the module docstring)."""
    return Submission.objects.filter(phase=phase, status=Submission.Status.SCORED, disqualified=False,
                                     qrels_release=current_qrels_release(phase), run_files__subset=subset)


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


def _subset_values(phase: Phase, subset: Subset) -> dict[int, dict[str, dict[str, float]]]:
    """{submission id: {metric: {qid: value}}} of the runs counted on `subset`. One query."""
    return dict(QueryScores.objects.filter(submission__in=counted_runs(phase, subset), subset=subset)
                .values_list("submission_id", "values"))


def _own_values(submission: Submission, subset: Subset) -> dict[str, dict[str, float]]:
    row = QueryScores.objects.filter(submission=submission, subset=subset).values_list("values", flat=True).first()
    return row or {}


def _rows(viewer: Viewer, values: dict[str, float], ranges: dict[str, TopicRange]) -> list[TopicRow]:
    """The report's rows, ordered on the exact values and then rounded for the viewer."""
    r = viewer.rounded
    return [TopicRow(topic=qid, value=r(values[qid]), best=r(ranges[qid].best), median=r(ranges[qid].median),
                     worst=r(ranges[qid].worst))
            for qid in by_difference(values, ranges)]


def topic_reports(viewer: Viewer, submission: Submission, subset: Subset) -> list[TopicReport]:
    """The run's report on `subset`, one per competition measure. Call it only where the viewer
    `sees_topic_report(submission)`, on a subset of `report_subsets`. A few queries, however
    many runs the phase has."""
    counted = _subset_values(submission.phase, subset)
    own = counted.get(submission.pk) or _own_values(submission, subset)  # a disqualified run is not counted
    reports = []
    for metric in viewer.competition.metrics:
        ranges = topic_ranges(values.get(metric, {}) for values in counted.values())
        reports.append(TopicReport(subset=subset, metric=metric, runs=len(counted),
                                   rows=_rows(viewer, own.get(metric, {}), ranges)))
    return reports


def _number(value: float | None) -> str:
    return "" if value is None else repr(value)


def run_topics_csv(viewer: Viewer, submission: Submission) -> str:
    """The run's reports on every subset the viewer may see and measure, one CSV (`CSV_COLUMNS`),
    in the report's order within each language and measure."""
    lines: list[list] = [list(CSV_COLUMNS)]
    for subset in report_subsets(viewer, submission):
        for report in topic_reports(viewer, submission, subset):
            lines += [[subset.code, row.topic, report.metric, _number(row.value), _number(row.best),
                       _number(row.median), _number(row.worst)] for row in report.rows]
    return csv_text(lines)


def _run_label(submission: Submission) -> str:
    owner = submission.team.name if submission.team_id else "Baseline"
    flag = ", disqualified" if submission.disqualified else ""
    return f"run {submission.pk}: {owner} #{submission.number} ({submission.method_name}{flag})"


def phase_topics_csv(phase: Phase) -> Iterator[str]:
    """For the organizers: every scored run's per-topic values on the phase's current judgments,
    one column per run, a row per language, topic and measure with the best, median and worst
    of the runs counted (disqualified runs have a column, marked, but do not count). Every
    subset, hidden ones too, at full precision; written a language at a time."""
    runs = list(Submission.objects.filter(phase=phase, status=Submission.Status.SCORED,
                                          qrels_release=current_qrels_release(phase))
                .select_related("team").order_by("created_at", "pk"))
    yield csv_text([["language", "topic", "measure", "best", "median", "worst", *map(_run_label, runs)]])
    ran = set(RunFile.objects.filter(submission__in=runs).values_list("subset_id", "submission_id"))
    metrics = phase.competition.metrics
    for subset in phase_subsets(phase, list(phase.competition.subsets.order_by("position", "code"))):
        values = {sid: v for sid, v in QueryScores.objects.filter(submission__in=runs, subset=subset)
                  .values_list("submission_id", "values") if (subset.pk, sid) in ran}
        counted = [values[run.pk] for run in runs if run.pk in values and not run.disqualified]
        for metric in metrics:
            ranges = topic_ranges(v.get(metric, {}) for v in counted)
            yield csv_text([[subset.code, qid, metric, _number(found.best), _number(found.median),
                             _number(found.worst), *(_number(values.get(run.pk, {}).get(metric, {}).get(qid))
                                                     for run in runs)]
                            for qid, found in sorted(ranges.items(), key=lambda item: topic_key(item[0]))])
