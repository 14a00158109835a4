"""Submission reads: who may see a submission, its files and which of its scores.

Scores of subsets still hidden (surprise languages before their reveal) are left out for
everyone but organizers; values are rounded to `competition.decimals` for participants;
per-query values go to organizers, or to the team when the phase shows them and its
judgments are not hidden.
"""
from datetime import datetime

from django.contrib.auth.models import AbstractBaseUser

from cupboard.competitions.selectors import is_subset_visible, phase_subsets, visible_subsets
from cupboard.teams.selectors import is_member

from .models import QueryScores, RunFile, Score, Submission


def can_view_submission(*, submission: Submission, user: AbstractBaseUser) -> bool:
    """Baselines are public; a team's submission is for its members and the organizers."""
    if submission.is_baseline:
        return True
    return submission.phase.competition.is_organizer(user) or \
        (submission.team is not None and is_member(team=submission.team, user=user))


def visible_run_files(*, submission: Submission, user: AbstractBaseUser, now: datetime) -> list[RunFile]:
    """The run files a viewer may list and download: a public baseline's run for a surprise
    language is as hidden as the language itself until its group's reveal. On a phase whose
    judgments are still hidden, baselines' runs are the organizers' until the judgments are
    public: organizers make baselines knowing the judgments (the demo's are generated from
    them), and a run that scores well spells out relevant documents."""
    phase = submission.phase
    if submission.is_baseline and not phase.qrels_are_public(now) and not phase.competition.is_organizer(user):
        return []
    run_files = submission.run_files.select_related("subset__group", "subset__competition")
    return [f for f in run_files if is_subset_visible(f.subset, now=now, user=user)]


def can_see_scores(*, submission: Submission, user: AbstractBaseUser, now: datetime) -> bool:
    """On a hidden phase, participants learn their scores only at its reveal."""
    phase = submission.phase
    return phase.competition.is_organizer(user) or phase.visibility != phase.Visibility.HIDDEN or \
        phase.is_revealed(now)


def phase_shows_per_query(phase) -> bool:
    """Participants may see per-query values (or figures derived from them) on this phase:
    it is set to show them and its judgments are not hidden."""
    return phase.per_query_visible and not phase.hidden_qrels


def can_see_per_query(*, submission: Submission, user: AbstractBaseUser) -> bool:
    phase = submission.phase
    if phase.competition.is_organizer(user):
        return True
    return not submission.is_baseline and phase_shows_per_query(phase)


def _for_viewer(value: float | None, *, competition, organizer: bool) -> float | None:
    return value if organizer or value is None else round(value, competition.decimals)


def score_tables(*, submission: Submission, user: AbstractBaseUser, now: datetime) -> tuple[list[dict], list[dict]]:
    """(rows, averages) the viewer may see; both empty when scores are hidden from them.

    rows: one per visible subset that has scores, {"subset", "code", "values": {metric: value},
    "has_run", "per_query"}. averages: K.Avg, S.Avg, Avg over the visible subsets, as the
    leaderboard computes them (over the phase's subsets, from unrounded values, with the competition's missing-subset
    rule), {"key", "label", "values"}. Values are rounded for participants after averaging.
    Queries: visible subsets (1-2), the phase's topics (1), scores (1), run files (1), per-query values (1)
    when allowed."""
    if not can_see_scores(submission=submission, user=user, now=now):
        return [], []
    competition = submission.phase.competition
    subsets = phase_subsets(submission.phase, visible_subsets(competition, now=now, user=user))
    values: dict[int, dict[str, float]] = {}
    for score in Score.objects.filter(submission=submission):
        values.setdefault(score.subset_id, {})[score.metric] = score.value
    organizer = competition.is_organizer(user)
    return (_rows(submission=submission, user=user, subsets=subsets, values=values, organizer=organizer),
            _averages(competition=competition, subsets=subsets, values=values, organizer=organizer))


def _rows(*, submission: Submission, user: AbstractBaseUser, subsets, values: dict, organizer: bool) -> list[dict]:
    competition = submission.phase.competition
    per_query = {}
    if can_see_per_query(submission=submission, user=user):
        per_query = {qs.subset_id: qs.values for qs in QueryScores.objects.filter(submission=submission)}
    with_runs = {f.subset_id for f in submission.run_files.all()}
    return [{"subset": s, "code": s.code, "has_run": s.pk in with_runs,
             "values": {m: _for_viewer(values[s.pk].get(m), competition=competition, organizer=organizer)
                        for m in competition.metrics},
             "per_query": per_query.get(s.pk)}
            for s in subsets if s.pk in values]


def _averages(*, competition, subsets, values: dict, organizer: bool) -> list[dict]:
    from evaluator.aggregate import group_means

    from cupboard.leaderboards.selectors import AVG_LABEL
    from cupboard.leaderboards.services import ALL, subset_groups

    if not values:
        return []
    by_code = {s.code: values[s.pk] for s in subsets if s.pk in values}
    means = group_means(by_code, subset_groups(subsets), missing=competition.missing_subset)
    groups = sorted({s.group_id: s.group for s in subsets}.values(), key=lambda g: (g.position, g.name))
    labels = {g.name: g.label for g in groups} | {ALL: AVG_LABEL}
    return [{"key": key, "label": labels[key],
             "values": {m: _for_viewer(means[key].get(m), competition=competition, organizer=organizer)
                        for m in competition.metrics}}
            for key in labels if key in means]


def status_payload(*, submission: Submission, user: AbstractBaseUser, now: datetime) -> dict:
    """What the status endpoint and the JSON API return for one submission."""
    scored = submission.status == Submission.Status.SCORED
    rows, averages = score_tables(submission=submission, user=user, now=now) if scored else ([], [])
    return {
        "id": submission.pk, "number": submission.number, "phase": submission.phase.slug,
        "team": submission.team.name if submission.team_id else None, "is_baseline": submission.is_baseline,
        "method_name": submission.method_name, "status": submission.status, "progress": submission.progress,
        "status_reason": submission.status_reason, "selected_for_final": submission.selected_for_final,
        "disqualified": submission.disqualified,
        "created_at": submission.created_at.isoformat(),
        "scored_at": submission.scored_at.isoformat() if submission.scored_at else None,
        "qrels_release": submission.qrels_release.number if submission.qrels_release_id else None,
        "scores": {row["code"]: row["values"] for row in rows},
        "averages": {average["key"]: average["values"] for average in averages},
        "per_query": {row["code"]: row["per_query"] for row in rows if row["per_query"] is not None},
    }


def duplicate_submission(*, phase, team, sha256s: set[str]) -> Submission | None:
    """A pending or scored submission of the same team (or baseline set) and phase with exactly
    these files, all still in storage: a submission whose files were lost (an upload during a
    broker outage, before commits kept their files) can never be scored, so a repeat of its
    files makes a new submission instead of answering with that broken one."""
    candidates = Submission.objects.filter(phase=phase, team=team, is_baseline=team is None,
                                           status__in=Submission.COUNTS_TOWARD_LIMIT).prefetch_related("run_files")
    for candidate in candidates.order_by("-created_at")[:50]:
        files = candidate.run_files.all()
        if {f.sha256 for f in files} == sha256s and all(f.file.storage.exists(f.file.name) for f in files):
            return candidate
    return None
