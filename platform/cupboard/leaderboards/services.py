"""Leaderboard writes: a phase's ranked rows from its Score rows.

Two ways, with the same result (tests/leaderboards/test_incremental_update.py):

- `leaderboard_update` after one scoring: re-reads the Score rows of that one team (or
  baseline) only, replaces its row and re-ranks the phase's rows in one UPDATE. Its cost is
  flat in the number of submissions of the phase (it grows with its rows, one per team).
- `leaderboard_refresh` rebuilds the whole phase from every Score row: after a reveal (what
  ranks count changed), a qrels release, a merge (selections and disqualifications
  change one team's row: `leaderboard_update`).

Both keep the rows they replace, when they changed, as the phase's history
(leaderboards/history.py): one read of the phase's rows before the write and one after.

The rank bands and intervals (standings.py) are never computed by a page or an export: a
rebuild re-tests the whole board before it commits; an update after one scoring publishes its
row at once and leaves the re-test to a job that runs once per burst of updates (bands.py), the
team's new row showing its old bands, marked as being updated, until the job's land.

Both are idempotent: running them twice, or late, leaves the rows the current scores imply.

While the phase is being re-scored (an open `RescoreStep`), neither writes: the rows are the
published board, and they change once, when the step's last run is finished
(leaderboards/rescoring.py); an update then only bumps the version, so pages say how far it got.
"""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from cupboard.bulk_writes import RowsWritten
from cupboard.competitions.models import Phase
from cupboard.competitions.selectors import ALL, phase_subsets, subset_groups
from cupboard.leaderboards.bands import bands_landed, bands_mark
from cupboard.leaderboards.cache import forget_recent_states
from cupboard.leaderboards.history import history_record, rows_state
from cupboard.leaderboards.ladder import ladder_candidate, query_vectors
from cupboard.leaderboards.models import LeaderboardRow
from cupboard.leaderboards.ranking import Candidate, counted_candidate, order_key, ranked
from cupboard.leaderboards.staleness import rows_are_stale
from cupboard.leaderboards.standings import PUT_OFF, standings_store
from cupboard.locking import locked
from cupboard.submissions.models import QueryScores, Score, Submission
from cupboard.submissions.steps import open_step
from cupboard.tallies import timed
from cupboard.teams.models import Team


def _candidates(*, phase: Phase, groups: dict[str, list[str]], ranked_on: list[str],
                owner: dict | None = None) -> list[tuple[Submission, Candidate]]:
    """Every counted-able submission of the phase, or of one `owner` ({"team_id": …} or {"pk": …})."""
    from evaluator.aggregate import group_means

    competition = phase.competition
    submissions = list(phase.submissions.filter(status=Submission.Status.SCORED, disqualified=False, **(owner or {}))
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


def _counted(phase: Phase, teams: list[list[Candidate]], ranked_on: list[str]) -> list[Candidate]:
    """The candidate each team's row shows: the phase's `ranking`, or on a phase with
    `ladder` (and ranking by best) the Ladder's shown run, from the per-query values of the
    primary metric of every run of those teams (leaderboards/ladder.py)."""
    if phase.ranking == Phase.Ranking.RUNS:  # every run its own row (issue 34): no run stands for its team
        return [candidate for candidates in teams for candidate in candidates]
    if not (phase.ladder and phase.ranking == Phase.Ranking.BEST):
        return [counted_candidate(candidates, ranking=phase.ranking) for candidates in teams]
    per_query: dict[int, dict[str, dict[str, float]]] = {c.submission_id: {} for team in teams for c in team}
    found = (QueryScores.objects.filter(submission_id__in=per_query, subset__code__in=ranked_on)
             .values_list("submission_id", "subset__code", f"values__{phase.competition.primary_metric}"))
    for submission_id, code, values in found:
        per_query[submission_id][code] = values or {}
    return [ladder_candidate(candidates, query_vectors({c.submission_id: per_query[c.submission_id]
                                                        for c in candidates}, ranked_on))
            for candidates in teams]


def _row(*, phase: Phase, submission: Submission, candidate: Candidate, rank: int | None) -> LeaderboardRow:
    release = submission.qrels_release
    return LeaderboardRow(phase=phase, submission=submission, team_id=submission.team_id,
                          is_baseline=submission.is_baseline, rank=rank, primary_value=candidate.primary_value,
                          values=candidate.values, averages=candidate.averages,
                          qrels_release_number=release.number if release else None)


def _ranked_on(subsets, now) -> list[str]:
    # Ranks (and the "best" submission) follow the average the public can see now: before a
    # surprise reveal nobody can upload those subsets, so counting them would make every
    # average incomplete (or uniformly lower) and the ranking meaningless. Rows keep the
    # averages over every subset for organizers.
    return [s.code for s in subsets if s.group.is_revealed(now)]


def _lock_phase(phase: Phase) -> Phase:
    # Two workers finishing at once must not interleave their writes: the phase row is the
    # lock (its place in the lock order: cupboard/locking.py).
    return locked(Phase.objects.select_related("competition")).get(pk=phase.pk)


@transaction.atomic
@timed("leaderboard_refreshes", "leaderboard_refresh_ms")  # the operators' metrics (cupboard/tallies.py)
def leaderboard_refresh(*, phase: Phase) -> list[LeaderboardRow]:
    """Recompute and store the rows of `phase` from its scores: one per team (the submission
    the phase's `ranking` counts), one per baseline (unranked). Returns them in rank order.

    `primary_value` and ranks use the subsets revealed at the time of the refresh; call it
    again once a group is revealed (beat's `refresh_stale_leaderboards` does)."""
    phase = _lock_phase(phase)
    if open_step(phase) is not None:  # the board holds until the step is published (rescoring.py)
        return list(LeaderboardRow.objects.filter(phase=phase).order_by("is_baseline", "rank", "pk"))
    before = rows_state(phase)
    subsets = _subsets(phase)
    groups = subset_groups(subsets)
    ranked_on = _ranked_on(subsets, timezone.now())
    by_team: dict[int, list[Candidate]] = defaultdict(list)
    baselines: list[Candidate] = []
    submissions: dict[int, Submission] = {}
    for submission, candidate in _candidates(phase=phase, groups=groups, ranked_on=ranked_on):
        submissions[submission.pk] = submission
        if submission.is_baseline:
            baselines.append(candidate)
        elif submission.team_id is not None:
            by_team[submission.team_id].append(candidate)
    counted = ranked(_counted(phase, list(by_team.values()), ranked_on))
    rows = [_row(phase=phase, submission=submissions[c.submission_id], candidate=c, rank=rank)
            for rank, c in enumerate(counted, start=1)]
    rows += [_row(phase=phase, submission=submissions[c.submission_id], candidate=c, rank=None)
             for c in ranked(baselines)]
    LeaderboardRow.objects.filter(phase=phase).delete()
    created = LeaderboardRow.objects.bulk_create(rows)
    history_record(phase=phase, before=before)
    _bands_now(phase, groups, ranked_on)
    leaderboard_bump(phase=phase)
    return created


def _bands_now(phase: Phase, groups: dict[str, list[str]], ranked_on: list[str]) -> float:
    """Re-test the whole board under the phase lock; the bands shown are then current. Returns its seconds."""
    seconds = standings_store(phase=phase, groups=groups, ranked_on=ranked_on)
    if PUT_OFF.get() is None:
        bands_landed(phase=phase)
    return seconds


def band_columns(phase: Phase) -> tuple[dict[str, list[str]], list[str]]:
    """The columns the bands are tested on: the subsets' groups, and the subsets ranked on now."""
    subsets = _subsets(phase)
    return subset_groups(subsets), _ranked_on(subsets, timezone.now())


def leaderboard_bump(*, phase: Phase) -> None:
    """A new leaderboard version: cached pages and exports of the phase (leaderboards/cache.py)
    are not served again. Called under the phase lock, by every write of its rows and by a
    qrels release (which changes the qrels version shown)."""
    _versions_bump(Phase.objects.filter(pk=phase.pk))


def _versions_bump(phases) -> None:
    phases.update(leaderboard_version=F("leaderboard_version") + 1, leaderboard_changed_at=timezone.now())
    # This process's own cookie-less visitors see the new version at once (leaderboards/cache.py);
    # again after commit, in case one of its threads read the old row in between.
    forget_recent_states()
    transaction.on_commit(forget_recent_states)


def team_saved(sender, instance, raw: bool = False, created: bool = False, update_fields=None, **_) -> None:
    """post_save of a team: the boards and their history name it, so a save that may rename it
    (any but a new team's, a raw one, or one of other named columns) is a new version of every
    board of its competition (keyed on it: leaderboards/cache.py)."""
    if not raw and not created and (update_fields is None or "name" in update_fields):
        _versions_bump(Phase.objects.filter(competition_id=instance.competition_id))


def teams_written(event: RowsWritten) -> None:
    """RowsWritten (cupboard/bulk_writes.py): teams renamed in bulk, as `team_saved`."""
    if event.model is Team and event.fields is not None and "name" in event.fields:
        _versions_bump(Phase.objects.filter(competition__teams__in=event.rows))


def _subsets(phase: Phase) -> list:
    return phase_subsets(phase, list(phase.competition.subsets.select_related("group").order_by("position", "code")))


def _is_stale(phase: Phase, subsets, now) -> bool:
    oldest = phase.leaderboard_rows.order_by("computed_at").values_list("computed_at", flat=True).first()
    return rows_are_stale(oldest, subsets, now)


@transaction.atomic
@timed("leaderboard_updates", "leaderboard_update_ms")
def leaderboard_update(*, phase: Phase, submission: Submission) -> None:
    """After `submission` was scored: recompute only its owner's row (its team's counted
    submission, or the baseline itself), then re-rank the phase's rows. A fixed number of
    queries whatever the phase's number of submissions; falls back to `leaderboard_refresh`
    when the rows predate a reveal."""
    phase = _lock_phase(phase)
    if open_step(phase) is not None:  # held (rescoring.py); the new version says one more run is done
        leaderboard_bump(phase=phase)
        return
    subsets, now = _subsets(phase), timezone.now()
    if _is_stale(phase, subsets, now):
        leaderboard_refresh(phase=phase)
        return
    if not submission.is_baseline and submission.team_id is None:
        return
    before = rows_state(phase)
    owner = {"pk": submission.pk} if submission.is_baseline else {"team_id": submission.team_id}
    groups, ranked_on = subset_groups(subsets), _ranked_on(subsets, now)
    found = _candidates(phase=phase, groups=groups, ranked_on=ranked_on, owner=owner)
    rows = LeaderboardRow.objects.filter(phase=phase)
    owned = (rows.filter(submission_id=submission.pk, is_baseline=True) if submission.is_baseline
             else rows.filter(team_id=submission.team_id, is_baseline=False))
    old_bands = dict(owned.values_list("submission_id", "standings"))
    owned.delete()
    if found:
        # one row, or on a board of every run (`ranking: runs`) one per run of the team
        shown = [ranked([c for _, c in found])[0]] if submission.is_baseline else \
            _counted(phase, [[c for _, c in found]], ranked_on)
        by_pk = {s.pk: s for s, _ in found}
        for chosen in shown:
            row = _row(phase=phase, submission=by_pk[chosen.submission_id], candidate=chosen, rank=None)
            # the last computation's, shown as being updated until the job's land
            row.standings = old_bands.get(chosen.submission_id) or next(iter(old_bands.values()), {})
            row.save()
    _rerank(phase)
    history_record(phase=phase, before=before)
    # Bands are relative: one team's new score can move everyone's, so the whole board is
    # re-tested, by a job once per burst of updates, outside this lock (bands.py).
    bands_mark(phase=phase)
    leaderboard_bump(phase=phase)


def _rerank(phase: Phase) -> None:
    """Ranks 1..n of the team rows by `order_key`, written in one UPDATE (only changed ones)."""
    team_rows = list(LeaderboardRow.objects.filter(phase=phase, is_baseline=False)
                     .only("pk", "rank", "primary_value", "submission_id", "submission__created_at")
                     .select_related("submission"))
    team_rows.sort(key=lambda r: order_key(r.primary_value, r.submission.created_at, r.submission_id))
    changed = []
    for rank, row in enumerate(team_rows, start=1):
        if row.rank != rank:
            row.rank = rank
            changed.append(row)
    LeaderboardRow.objects.bulk_update(changed, ["rank"])


@transaction.atomic
def leaderboard_retest(*, phase: Phase) -> float:
    """Re-test the stored rows (rank bands, intervals) now, without rebuilding them: what a
    rebuild ends with, alone (the bench times it). Returns its seconds."""
    phase = _lock_phase(phase)
    if open_step(phase) is not None:  # the per-query values are half new: the step's publication re-tests
        return 0.0
    seconds = _bands_now(phase, *band_columns(phase))
    leaderboard_bump(phase=phase)
    return seconds


@contextmanager
def leaderboards_retested_once() -> Iterator[None]:
    """Within the block, a board write leaves its rank bands to the block's end, where each
    board written is re-tested once, at once (no job): for a caller that writes a board many
    times before anyone may read it and wants the bands there when it ends: `load_demo` scores a
    phase's 15 runs one after the other (11 phases, 152 writes), inside one transaction. Until
    the end the rows keep the bands of before (a team's first row has none)."""
    put_off: set[int] = set()
    token = PUT_OFF.set(put_off)
    try:
        yield
    finally:
        PUT_OFF.reset(token)
    for phase in Phase.objects.filter(pk__in=put_off):
        leaderboard_retest(phase=phase)
