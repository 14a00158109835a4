"""Two submissions of one phase, side by side: per language and metric, both means, the
difference, and whether it is significant (paired t-test and randomization test over the
per-query values the worker kept).

Every figure here is derived from per-query values, so comparing is allowed exactly where
those values may be seen: organizers always; participants only where the phase shows
per-query values (`Viewer.phase_shows_per_query`: never while its judgments are hidden, from
their reveal on), and only between submissions they may open (their team's and the public
baselines).
"""
from __future__ import annotations

from django.db.models import Q

from cupboard.competitions.viewer import Viewer
from evaluator.significance import paired_t_test, randomization_test

from .models import QueryScores, Submission

TRIALS = 10_000  # randomization trials: p within about +-0.005 of its limit at p = 0.05
SEED = 0         # the same pair always gets the same p


def _per_query_allowed(viewer: Viewer, submission: Submission) -> bool:
    """Figures derived from its per-query values: where the viewer may open the submission and
    the phase shows such values to them (organizers: always). A baseline counts as shown when
    its scores are (its per-query values themselves are never listed)."""
    if viewer.is_organizer:
        return True
    return (submission.status == Submission.Status.SCORED and viewer.sees_submission(submission)
            and viewer.sees_scores(submission) and viewer.phase_shows_per_query(submission.phase))


def can_compare(viewer: Viewer, a: Submission, b: Submission) -> bool:
    """Both scored, in the same phase, and each one's per-query values visible to the viewer."""
    return (a.pk != b.pk and a.phase_id == b.phase_id
            and a.status == b.status == Submission.Status.SCORED
            and _per_query_allowed(viewer, a) and _per_query_allowed(viewer, b))


# What the list and its rule read of each run (the rule: `_per_query_allowed`; the list: its id
# and name): a team's runs pile up over a Cup, and their other columns were most of its cost.
_LISTED = ("phase", "team__name", "number", "method_name", "status", "is_baseline", "created_at")


def comparable_submissions(viewer: Viewer, submission: Submission) -> list[Submission]:
    """The other scored submissions of the phase the viewer may compare `submission` with, newest
    first: for organizers all of them; for a team member the team's and the baselines, on
    phases that show per-query values. The same rule as `can_compare`, in a few queries."""
    if not _per_query_allowed(viewer, submission):
        return []
    others = (Submission.objects.filter(phase=submission.phase, status=Submission.Status.SCORED)
              .exclude(pk=submission.pk).select_related("team").only(*_LISTED).order_by("-created_at"))
    if not viewer.is_organizer:
        own = Q(team=viewer.team) if viewer.team is not None else Q(pk__in=[])
        others = others.filter(Q(is_baseline=True) | own)
    listed = list(others)
    for other in listed:  # the same phase object: what the viewer reads of it once serves every run
        other.phase = submission.phase
    return [other for other in listed if _per_query_allowed(viewer, other)]


def comparison_rows(viewer: Viewer, a: Submission, b: Submission) -> list[dict]:
    """One row per visible subset both submissions scored, and per metric: {"subset", "metric",
    "a", "b", "difference", "queries", "p_t", "p_randomization"}, or {"subset", "metric", "problem"} when they cannot be paired."""
    competition = a.phase.competition
    subsets = viewer.subsets
    values = {}
    for row in QueryScores.objects.filter(submission__in=[a, b], subset__in=subsets):
        values[(row.submission_id, row.subset_id)] = row.values
    rows = []
    for subset in subsets:
        per_a, per_b = values.get((a.pk, subset.pk)), values.get((b.pk, subset.pk))
        if per_a is None or per_b is None:
            continue
        for metric in competition.metrics:
            rows.append(_compare(subset, metric, per_a.get(metric, {}), per_b.get(metric, {})))
    return rows


def _compare(subset, metric: str, a: dict[str, float], b: dict[str, float]) -> dict:
    row = {"subset": subset, "metric": metric}
    try:
        t = paired_t_test(a, b)
    except ValueError as error:  # different queries: one was scored on other judgments (a re-score under way)
        return row | {"problem": str(error)}
    r = randomization_test(a, b, trials=TRIALS, seed=SEED)
    return row | {"a": sum(a.values()) / len(a), "b": sum(b.values()) / len(b), "difference": t.mean_difference,
                  "queries": t.queries, "p_t": t.p_value, "p_randomization": r.p_value}
