"""Submission reads: a submission's files and scores, as its viewer may see them.

Which submissions, files, scores and per-query values a person may see is their `Viewer`'s
answer (competitions/viewer.py); this module only reads what it allows.
"""
from django.db.models import Count, Prefetch, Q, prefetch_related_objects
from django.utils import timezone

from cupboard.audit.models import AuditEvent
from cupboard.competitions.models import Competition
from cupboard.competitions.run_metadata import metadata_current, metadata_fields
from cupboard.competitions.selectors import ALL, AVG_LABEL, averaged_groups, phase_subsets, subset_groups
from cupboard.competitions.viewer import Viewer
from cupboard.teams.models import Membership, Team

from .coverage import incomplete, run_files_coverage
from .models import QueryScores, QuotaGrant, RunFile, Submission
from .queue import queue_place
from .topic_reports import has_report

# A submission's run files with what its pages and answers read of each: prefetch a list's
# with it (`Submission.objects.prefetch_related(RUN_FILES, "scores")`) and `status_payload`
# reads no run file or score again per submission.
RUN_FILES = Prefetch("run_files", queryset=RunFile.objects.select_related("subset__group", "subset__competition"))


def visible_run_files(viewer: Viewer, submission: Submission) -> list[RunFile]:
    """The run files a viewer may list and download (`Viewer.sees_runs`), but those of subsets
    still hidden from them: a baseline's run for a surprise language is as hidden as the language."""
    if not viewer.sees_runs(submission):
        return []
    prefetch_related_objects([submission], RUN_FILES)  # nothing to do when a list prefetched them
    return [f for f in submission.run_files.all() if viewer.sees_subset(f.subset)]


def score_tables(viewer: Viewer, submission: Submission) -> tuple[list[dict], list[dict]]:
    """(rows, averages) the viewer may see; both empty when scores are hidden from them.

    rows: one per visible subset that has scores, {"subset", "code", "values": {metric: value},
    "has_run", "per_query"}. averages: K.Avg, S.Avg, Avg over the visible subsets, as the
    leaderboard computes them (over the phase's subsets, from unrounded values, with the competition's missing-subset
    rule), {"key", "label", "values"}. Values are rounded for participants after averaging.
    Queries: the phase's topics (1), scores (1), run files (1), per-query values (1) when allowed."""
    if not viewer.sees_scores(submission):
        return [], []
    subsets = phase_subsets(submission.phase, viewer.subsets)
    values: dict[int, dict[str, float]] = {}
    for score in submission.scores.all():  # prefetched by a list
        values.setdefault(score.subset_id, {})[score.metric] = score.value
    return _rows(viewer, submission, subsets, values), _averages(viewer, subsets, values)


def _rows(viewer: Viewer, submission: Submission, subsets, values: dict) -> list[dict]:
    metrics = viewer.competition.metrics
    per_query = {}
    if viewer.sees_per_query(submission):
        per_query = {qs.subset_id: qs.values for qs in QueryScores.objects.filter(submission=submission)}
    with_runs = {f.subset_id for f in submission.run_files.all()}
    return [{"subset": s, "code": s.code, "has_run": s.pk in with_runs,
             "values": {m: viewer.rounded(values[s.pk].get(m)) for m in metrics},
             "per_query": per_query.get(s.pk)}
            for s in subsets if s.pk in values]


def _averages(viewer: Viewer, subsets, values: dict) -> list[dict]:
    from evaluator.aggregate import group_means


    if not values:
        return []
    competition = viewer.competition
    by_code = {s.code: values[s.pk] for s in subsets if s.pk in values}
    means = group_means(by_code, subset_groups(subsets), missing=competition.missing_subset)
    labels = {g.name: g.label for g in averaged_groups(subsets, every=viewer.all_subsets)} | {ALL: AVG_LABEL}
    return [{"key": key, "label": labels[key], "values": {m: viewer.rounded(means[key].get(m)) for m in competition.metrics}}
            for key in labels if key in means]


def _queue(submission: Submission) -> dict | None:
    """Its place in the scoring queue and the estimate (queue.py), while it waits or is scored."""
    now = timezone.now()
    place = queue_place(submission, now=now)
    return None if place is None else place.as_dict(now)


def shown_of(viewer: Viewer, submission: Submission) -> str:
    """What the viewer sees of this run now: the phase's `before_reveal` for them, or
    "ladder" where the Ladder keeps its scores from its own team (`Viewer.ladder_hides`)."""
    return "ladder" if viewer.ladder_hides(submission) else viewer.before_reveal(submission.phase)


def status_payload(viewer: Viewer, submission: Submission) -> dict:
    """What the status endpoint and the JSON API return for one submission. `shown` says what
    the viewer sees of its runs now (`Phase.BeforeReveal`); "status": no score at all.
    `coverage` counts each visible run's queries against its topics; `warnings` say in words
    which languages leave queries out (they count 0); "ladder": this run is not the one the
    Ladder shows, so no score (`Viewer.ladder_hides`). `repeat`: these files were already
    stored as this submission (`submission_create`), nothing new was made."""
    scored = submission.status == Submission.Status.SCORED
    run_files = visible_run_files(viewer, submission)  # first: its prefetch serves score_tables too
    rows, averages = score_tables(viewer, submission) if scored else ([], [])
    coverage = run_files_coverage(run_files)
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
        "average_labels": {average["key"]: average["label"] for average in averages},  # K.Avg, as the site says
        "per_query": {row["code"]: row["per_query"] for row in rows if row["per_query"] is not None},
        "shown": shown_of(viewer, submission), "decimals": viewer.decimals,
        "coverage": [c.as_dict() for c in coverage], "warnings": [c.text for c in incomplete(coverage)],
        "repeat": submission.is_repeat,
        "queue": _queue(submission),
        "metadata": metadata_current(metadata_fields(viewer.competition), submission.metadata),
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


def team_submissions(viewer: Viewer, *, phase_slug: str = "", status: str = "", limit: int | None = None) -> list[dict]:
    """The viewer's team's submissions of every phase (newest first), optionally of one phase
    and one status, each with the averages of the primary metric the viewer may see of it
    [(label, value)] (`score_tables`): none on a phase that shows only "valid and scored"
    before its reveal; `per_topic`: whether its per-topic report is open to the viewer. The
    newest `limit` only, when given. [] without a team."""
    team = viewer.team
    if team is None:
        return []
    submissions = Submission.objects.filter(team=team).select_related("phase", "team", "qrels_release")
    if phase_slug:
        submissions = submissions.filter(phase__slug=phase_slug)
    if status:
        submissions = submissions.filter(status=status)
    rows, metric = [], viewer.competition.primary_metric
    releases: dict[int, int | None] = {}  # each phase's current judgments, read once
    for submission in submissions.order_by("-created_at")[:limit]:
        scored = submission.status == Submission.Status.SCORED
        tables = score_tables(viewer, submission)[1] if scored else []
        averages = [(average["label"], average["values"].get(metric)) for average in tables]
        rows.append({"submission": submission, "averages": averages,
                     "scores_hidden": scored and not viewer.sees_scores(submission),
                     "ladder": viewer.ladder_note(submission) if scored else "",
                     "per_topic": has_report(viewer, submission, releases=releases)})
    return rows


def scoring_progress(*, phase) -> dict:
    """A phase's submissions by state, for the organizers' progress page: {"statuses": {status:
    count} in lifecycle order, "total", "done" (scored, rejected or failed), "pending", "percent"}.
    One query."""
    counts = dict(Submission.objects.filter(phase=phase).values_list("status").annotate(n=Count("pk")).order_by())
    statuses = {status.value: counts.get(status.value, 0) for status in Submission.Status}
    total = sum(statuses.values())
    pending = sum(statuses[s] for s in Submission.PENDING)
    done = total - pending
    return {"statuses": statuses, "total": total, "done": done, "pending": pending,
            "percent": 100 if not total else done * 100 // total}


def teams_overview(*, competition: Competition) -> dict:
    """The organizers' teams page (views_manage.py; here because it counts submissions): each team with its members (captain first) and its submissions
    per phase (all / counting against the limits, and the extra slots granted), the grants and the
    competition's team changes, newest first. Five queries, whatever the number of teams."""
    phases = list(competition.phases.order_by("position"))
    memberships = Prefetch("memberships", queryset=Membership.objects.select_related("user").order_by("joined_at", "pk"))
    teams = list(Team.objects.filter(competition=competition).prefetch_related(memberships).order_by("name"))
    for team in teams:
        team.competition = competition  # its address names the competition: no query per team
    counts = (Submission.objects.filter(phase__competition=competition, team__isnull=False)
              .values("team_id", "phase_id")
              .annotate(total=Count("pk"), counted=Count("pk", filter=Q(status__in=Submission.COUNTS_TOWARD_LIMIT))))
    by_team: dict[int, dict[int, dict]] = {}
    for row in counts:
        by_team.setdefault(row["team_id"], {})[row["phase_id"]] = row
    grants = list(QuotaGrant.objects.filter(phase__competition=competition)
                  .select_related("team", "phase", "granted_by").order_by("-created_at", "-pk"))
    extra: dict[tuple[int, int], int] = {}
    for grant in grants:
        extra[grant.team_id, grant.phase_id] = extra.get((grant.team_id, grant.phase_id), 0) + grant.extra
    rows = [{"team": team, "members": [m.user for m in team.memberships.all()],
             "per_phase": [by_team.get(team.pk, {}).get(phase.pk, {"total": 0, "counted": 0})
                           | {"granted": extra.get((team.pk, phase.pk), 0)} for phase in phases]}
            for team in teams]
    events = (AuditEvent.objects.filter(competition=competition, action__in=AuditEvent.TEAM_ACTIONS)
              .select_related("actor")[:500])
    return {"phases": phases, "rows": rows, "events": list(events), "grants": grants}
