"""Every counted run of a phase as leaderboard rows, for the official results (issue 34).

A Cup's board shows one row per team (the run its `ranking` counts); a TREC overview lists
every run with every measure. The official results frozen at a reveal, and so the paper
tables and the archive made from them, are the second: each team's other scored, not
disqualified runs are shaped as `BoardRow`s beside the board's own rows and ranked with them
by the selectors, run against run. They carry no rank bands: those were tested on the board's
rows (leaderboards/standings.py).
"""
from __future__ import annotations

from datetime import datetime

from django.utils import timezone

from cupboard.competitions.models import Phase
from cupboard.competitions.selectors import phase_subsets, subset_groups
from cupboard.leaderboards.rows import BoardRow
from cupboard.submissions.models import Score, Submission


def other_run_rows(phase: Phase, *, shown: set[int], until: datetime | None = None) -> list[BoardRow]:
    """The phase's counted runs (scored, not disqualified) not among `shown` (submission ids)
    and uploaded by `until`, each with its scores and averages as a board row would hold them."""
    from evaluator.aggregate import group_means

    competition = phase.competition
    runs = Submission.objects.filter(phase=phase, status=Submission.Status.SCORED, disqualified=False)
    if until is not None:
        runs = runs.filter(created_at__lte=until)
    runs = list(runs.exclude(pk__in=shown).select_related("team", "qrels_release"))
    values: dict[int, dict[str, dict[str, float]]] = {run.pk: {} for run in runs}
    for submission_id, code, metric, value in (Score.objects.filter(submission__in=runs)
                                               .values_list("submission_id", "subset__code", "metric", "value")):
        values[submission_id].setdefault(code, {})[metric] = value
    groups = subset_groups(phase_subsets(phase, list(competition.subsets.select_related("group").order_by("position", "code"))))
    now = timezone.now()
    return [BoardRow(submission_id=run.pk, team_id=run.team_id, team_name=run.team.name if run.team else "",
                     is_baseline=run.is_baseline, method=run.method_name, submitted_at=run.created_at,
                     metadata=run.metadata or {}, values=values[run.pk],
                     averages=group_means(values[run.pk], groups, missing=competition.missing_subset),
                     standings={}, qrels_release_number=run.qrels_release.number if run.qrels_release else None,
                     computed_at=now)
            for run in runs]
