"""Judged@10: how much of each run's top 10 the judgments cover, stored when it is scored
and read for the submission page (with a warning when a run is far less judged than the
baselines) and the organizer's pool page.

A run whose top 10 is mostly unjudged scores a lower bound: unjudged documents count as
non-relevant, however relevant they are. On a phase whose judgments are hidden, Judged@10
tells which retrieved documents are judged, so only organizers see it there until the
judgments are public (`Viewer.sees_judged`).
"""
from __future__ import annotations

from dataclasses import dataclass
from statistics import mean

from cupboard.bidi import isolate
from cupboard.competitions.models import Phase
from cupboard.competitions.selectors import phase_subsets
from cupboard.competitions.viewer import Viewer
from cupboard.submissions.models import Submission

from .models import JUDGED_METRIC, JudgedShare

# A run is "far below" the baselines on a subset when its Judged@10 is this much under their mean.
FAR_BELOW = 0.2
# Judged@10 is a share, shown to two decimals on every page and chart, rounded once from the
# exact stored value: rounding first to the competition's decimals turned 0.2249 into 0.23.
JUDGED_DECIMALS = 2


def judged_shares_store(*, submission, results: list) -> None:
    """Replace the submission's Judged@10 rows with those of `results` ([(subset, SubsetResult
    or None)], as scoring stores them); called inside the scoring's transaction."""
    JudgedShare.objects.filter(submission=submission).delete()
    JudgedShare.objects.bulk_create([
        JudgedShare(submission=submission, subset=subset, value=result.means[JUDGED_METRIC])
        for subset, result in results if result is not None and JUDGED_METRIC in result.means])


def _baseline_means(submission, codes: set[str]) -> dict[str, float]:
    """{subset: mean Judged@10 of the phase's scored baselines}."""
    by_code: dict[str, list[float]] = {}
    for code, value in (JudgedShare.objects.filter(submission__phase_id=submission.phase_id,
                                                   submission__is_baseline=True, submission__status="scored",
                                                   subset__code__in=codes)
                        .values_list("subset__code", "value")):
        by_code.setdefault(code, []).append(value)
    return {code: mean(values) for code, values in by_code.items()}


def submission_judged(viewer: Viewer, submission) -> list[dict] | None:
    """Rows for the submission page, one per subset the viewer sees and the run has: `value` (Judged@10),
    `baselines` (their mean, None without baselines) and `far_below`; None when the viewer
    may not see it (or it has none: scored before Judged@10 was kept)."""
    if not viewer.sees_judged(submission):
        return None
    shares = {s.subset.code: s.value for s in submission.judged_shares.select_related("subset")}
    if not shares:
        return None
    # Only the languages the run has: scoring stores 0 for every other one (its judged queries
    # count 0), and a row and a "far below" warning for each made the page ~10,000 px on a phone.
    ran = set(submission.run_files.values_list("subset__code", flat=True))
    subsets = [s for s in phase_subsets(submission.phase, viewer.subsets) if s.code in shares and s.code in ran]
    # The baselines' figures follow their scores' rule: under "own" or "status" nobody but
    # organizers sees anything of a baseline before the reveal.
    shows_baselines = not submission.is_baseline and viewer.before_reveal(submission.phase) == Phase.BeforeReveal.EVERYTHING
    baselines = _baseline_means(submission, {s.code for s in subsets}) if shows_baselines else {}
    rows = []
    for subset in subsets:
        value, base = shares[subset.code], baselines.get(subset.code)
        rows.append({"subset": subset, "value": value, "baselines": base,
                     "far_below": base is not None and value < base - FAR_BELOW})
    return rows


def sees_phase_judged(viewer: Viewer, phase) -> bool:
    """The phase's Judged@10 table: organizers always; anyone else where they see the
    leaderboard (so every run's scores) and the judgments are public, and not while the board
    is frozen (it reads the live rows: it would tell which run each team counts now)."""
    return viewer.is_organizer or (viewer.sees_leaderboard(phase) and viewer.sees_qrels(phase)
                                   and viewer.before_reveal(phase) == Phase.BeforeReveal.EVERYTHING
                                   and viewer.frozen_since(phase) is None)


def phase_judged(phase, viewer: Viewer) -> dict:
    """Every leaderboard row (each team's counted run, each baseline) with its Judged@10 per
    subset the viewer sees, in leaderboard order, rounded once to JUDGED_DECIMALS; links only to runs they may
    open; each team's other counted runs are listed below its row (unranked) to organizers and,
    once a phase's official results are out (they list every run), to whoever sees them (issue
    34: a pool's coverage is every run's, not each team's best). Call it only where
    `sees_phase_judged`. {"subsets": [...], "rows": [{"label", "url", "values": {code: value},
    "cells": [value per subset]}]}."""
    subsets = phase_subsets(phase, viewer.subsets)
    codes = [s.code for s in subsets]
    # The run's team too: `sees_submission` reads it for every row's link (a query per row on a miss).
    board: list = list(phase.leaderboard_rows.select_related("submission__team", "team")
                       .order_by("is_baseline", "rank", "pk"))
    if viewer.is_organizer or viewer.sees_official_results(phase):
        board = _with_other_runs(board, _other_runs(phase, {r.submission_id for r in board}))
    shares: dict[int, dict[str, float]] = {}
    for submission_id, code, value in JudgedShare.objects.filter(
            submission_id__in=[r.submission_id for r in board]).values_list("submission_id", "subset__code", "value"):
        shares.setdefault(submission_id, {})[code] = value
    rows = []
    for r in board:
        values = {code: round(value, JUDGED_DECIMALS) for code, value in shares.get(r.submission_id, {}).items()
                  if code in codes}
        rank = f"{r.rank}. " if r.rank is not None else ""
        rows.append({"label": f"{rank}{isolate(r.team.name)}" if r.team_id else f"Baseline: {isolate(r.submission.method_name)}",
                     "method": "" if r.submission.is_baseline else r.submission.method_name,  # a baseline's label names it
                     "values": values, "cells": [values.get(c) for c in codes],
                     "url": r.submission.get_absolute_url() if viewer.sees_submission(r.submission) else None})
    return {"subsets": subsets, "rows": rows}


@dataclass(frozen=True)
class _Run:
    """A counted run that is not a leaderboard row, shaped as one for the table (no rank)."""

    submission: Submission
    team: object
    team_id: int | None
    rank: None = None

    @property
    def is_baseline(self) -> bool:
        return self.submission.is_baseline

    @property
    def submission_id(self) -> int:
        return self.submission.pk


def _with_other_runs(board: list, others: list[_Run]) -> list:
    """The board's rows, each team's other runs right below its row (a team without one: at the end)."""
    by_team: dict = {}
    for run in others:
        by_team.setdefault(run.team_id if not run.submission.is_baseline else None, []).append(run)
    rows: list = []
    for row in board:
        rows.append(row)
        if row.team_id is not None and not row.is_baseline:
            rows += by_team.pop(row.team_id, [])
    return rows + [run for runs in by_team.values() for run in runs]


def _other_runs(phase, shown: set[int]) -> list[_Run]:
    """The phase's other counted runs (scored, not disqualified), by team, then upload."""
    others = (Submission.objects.filter(phase=phase, status=Submission.Status.SCORED, disqualified=False)
              .exclude(pk__in=shown).select_related("team").order_by("is_baseline", "team__name", "number"))
    return [_Run(submission=s, team=s.team, team_id=s.team_id) for s in others]
