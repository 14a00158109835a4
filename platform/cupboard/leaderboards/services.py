"""Leaderboard writes: rebuild a phase's ranked rows from its Score rows.

The submissions app calls `leaderboard_refresh` after every scoring (and after a re-score
against new qrels), so pages only read precomputed rows. Rebuilding a whole phase is cheap
(one row per team plus baselines) and makes the function idempotent: running it twice, or
late, leaves the rows the current scores imply.
"""
from __future__ import annotations

from collections import defaultdict

from django.db import transaction
from django.utils import timezone

from cupboard.competitions.models import Phase
from cupboard.competitions.selectors import phase_subsets
from cupboard.leaderboards.models import LeaderboardRow
from cupboard.leaderboards.ranking import Candidate, counted_candidate, ranked
from cupboard.locking import locked
from cupboard.submissions.models import Score, Submission

# Key of the overall average (the "Avg" column) among the group averages.
ALL = "all"


def subset_groups(subsets) -> dict[str, list[str]]:
    """{group name: [subset codes]} plus "all": the averages a row carries."""
    groups: dict[str, list[str]] = defaultdict(list)
    for subset in subsets:
        groups[subset.group.name].append(subset.code)
    groups[ALL] = [subset.code for subset in subsets]
    return dict(groups)


def _candidates(*, phase: Phase, groups: dict[str, list[str]],
                ranked_on: list[str]) -> list[tuple[Submission, Candidate]]:
    from evaluator.aggregate import group_means

    competition = phase.competition
    submissions = list(phase.submissions.filter(status=Submission.Status.SCORED, disqualified=False)
                       .select_related("qrels_release"))
    values: dict[int, dict[str, dict[str, float]]] = {s.pk: {} for s in submissions}
    scores = Score.objects.filter(submission__in=submissions).values_list("submission_id", "subset__code",
                                                                           "metric", "value")
    for submission_id, code, metric, value in scores:
        values[submission_id].setdefault(code, {})[metric] = value
    result = []
    for submission in submissions:
        averages = group_means(values[submission.pk], groups, missing=competition.missing_subset)
        ranking_average = averages[ALL]
        if ranked_on != groups[ALL]:
            ranking_average = group_means(values[submission.pk], {ALL: ranked_on}, missing=competition.missing_subset)[ALL]
        result.append((submission, Candidate(
            submission_id=submission.pk, team_id=submission.team_id, created_at=submission.created_at,
            selected_for_final=submission.selected_for_final, values=values[submission.pk], averages=averages,
            primary_value=ranking_average.get(competition.primary_metric))))
    return result


def _row(*, phase: Phase, submission: Submission, candidate: Candidate, rank: int | None) -> LeaderboardRow:
    release = submission.qrels_release
    return LeaderboardRow(phase=phase, submission=submission, team_id=submission.team_id,
                          is_baseline=submission.is_baseline, rank=rank, primary_value=candidate.primary_value,
                          values=candidate.values, averages=candidate.averages,
                          qrels_release_number=release.number if release else None)


@transaction.atomic
def leaderboard_refresh(*, phase: Phase) -> list[LeaderboardRow]:
    """Recompute and store the rows of `phase` from its scores: one per team (the submission
    the phase's `ranking` counts), one per baseline (unranked). Returns them in rank order.

    `primary_value` and ranks use the subsets revealed at the time of the refresh; call it
    again once a group is revealed (`leaderboard_refresh_competition`)."""
    # Two workers finishing at once must not interleave their delete and insert: the phase
    # row is the lock (its place in the lock order: cupboard/locking.py).
    phase = locked(Phase.objects.select_related("competition")).get(pk=phase.pk)
    competition = phase.competition
    subsets = phase_subsets(phase, list(competition.subsets.select_related("group").order_by("position", "code")))
    groups = subset_groups(subsets)
    # Ranks (and the "best" submission) follow the average the public can see now: before a
    # surprise reveal nobody can upload those subsets, so counting them would make every
    # average incomplete (or uniformly lower) and the ranking meaningless. Rows keep the
    # averages over every subset for organizers.
    ranked_on = [s.code for s in subsets if s.group.is_revealed(timezone.now())]
    by_team: dict[int, list[Candidate]] = defaultdict(list)
    baselines: list[Candidate] = []
    submissions: dict[int, Submission] = {}
    for submission, candidate in _candidates(phase=phase, groups=groups, ranked_on=ranked_on):
        submissions[submission.pk] = submission
        if submission.is_baseline:
            baselines.append(candidate)
        elif submission.team_id is not None:
            by_team[submission.team_id].append(candidate)
    counted = ranked([counted_candidate(c, ranking=phase.ranking) for c in by_team.values()])
    rows = [_row(phase=phase, submission=submissions[c.submission_id], candidate=c, rank=rank)
            for rank, c in enumerate(counted, start=1)]
    rows += [_row(phase=phase, submission=submissions[c.submission_id], candidate=c, rank=None)
             for c in ranked(baselines)]
    LeaderboardRow.objects.filter(phase=phase).delete()
    return LeaderboardRow.objects.bulk_create(rows)


def leaderboard_refresh_competition(*, competition) -> None:
    """Refresh every phase of `competition`: after a subset group's reveal, whose new
    columns change what ranks count."""
    for phase in competition.phases.all():
        leaderboard_refresh(phase=phase)
