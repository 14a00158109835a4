"""The organizers' export of a phase: every submission (teams' and baselines', every state,
disqualified ones too) with its metadata and every score at full precision, as one CSV.
Run metadata follows as `meta:<name>` columns: the fields asked now, then any a stored
submission still carries from an earlier version of the YAML (nothing answered is lost).

For the organizer area only, so it shows everything, hidden languages included; the CSV is
written by `cupboard.csvexport`, which keeps a method name like `=HYPERLINK(...)` text.
"""
from __future__ import annotations

from cupboard.competitions.models import Phase
from cupboard.competitions.run_metadata import metadata_fields
from cupboard.competitions.selectors import phase_subsets
from cupboard.csvexport import csv_text

from .models import Score, Submission

COLUMNS = ("id", "team", "number", "baseline", "method", "status", "status_reason", "submitted_by", "members",
           "created_at", "scored_at", "qrels_version", "selected_for_final", "disqualified", "disqualified_reason",
           "languages", "description", "paper_url", "code_url")


def _instant(value) -> str:
    return value.isoformat() if value else ""


def _row(submission: Submission) -> list:
    return [submission.pk, submission.team.name if submission.team_id else "", submission.number,
            "yes" if submission.is_baseline else "no", submission.method_name, submission.status,
            submission.status_reason, submission.submitted_by.username if submission.submitted_by_id else "",
            " ".join(sorted(u.username for u in submission.members.all())),
            _instant(submission.created_at), _instant(submission.scored_at),
            submission.qrels_release.number if submission.qrels_release_id else "",
            "yes" if submission.selected_for_final else "no", "yes" if submission.disqualified else "no",
            submission.disqualified_reason, " ".join(sorted(f.subset.code for f in submission.run_files.all())),
            submission.description, submission.paper_url, submission.code_url]


def phase_submissions_csv(*, phase: Phase) -> str:
    """One row per submission, oldest first: the metadata above, then `<code> <metric>` for each
    of the phase's subsets and metrics (empty where it has no score). Five queries whatever the
    number of submissions: subsets, topics, submissions, their members and run files, scores."""
    competition = phase.competition
    subsets = phase_subsets(phase, list(competition.subsets.order_by("position", "code")))
    metrics = competition.metrics
    submissions = list(Submission.objects.filter(phase=phase)
                       .select_related("team", "submitted_by", "qrels_release")
                       .prefetch_related("members", "run_files__subset").order_by("created_at", "pk"))
    values: dict[tuple[int, int, str], float] = {
        (s.submission_id, s.subset_id, s.metric): s.value for s in Score.objects.filter(submission__phase=phase)}
    names = _metadata_names(competition, submissions)
    header = [*COLUMNS, *(f"meta:{name}" for name in names),
              *(f"{subset.code} {metric}" for subset in subsets for metric in metrics)]
    body = [[*_row(submission), *(_metadata_cell(submission.metadata.get(name)) for name in names),
             *(_score(values.get((submission.pk, subset.pk, metric))) for subset in subsets for metric in metrics)]
            for submission in submissions]
    return csv_text([header, *body])


def _metadata_names(competition, submissions: list[Submission]) -> list[str]:
    asked = [field.name for field in metadata_fields(competition)]
    earlier = sorted({name for s in submissions for name in s.metadata} - set(asked))
    return asked + earlier


def _metadata_cell(value) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    return "" if value is None else str(value)


def _score(value: float | None) -> str:
    return "" if value is None else repr(value)
