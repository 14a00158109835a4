"""A finished final phase in the demo: DuReader's test phase ends and is revealed at the
load, so its official results are frozen, the overview paper's tables exist, and a results
archive is built with the runs of the teams that ticked "release this run" (plan.RELEASING)."""
from __future__ import annotations

from collections.abc import Callable

from django.contrib.auth.models import User
from django.utils import timezone

from cupboard.competitions.models import Competition, Phase
from cupboard.leaderboards.archive import results_archive_build, results_archive_create
from cupboard.leaderboards.releases import final_results_release_due


def demo_results_publish(*, competition: Competition, organizer: User, log: Callable[[str], None]) -> None:
    """Close and reveal the final phase now (its runs are all in: the load scored them), then
    freeze its results and build its archive as the beat task and a worker would."""
    final = competition.phases.get(is_final=True)
    now = timezone.now()
    # Straight to the row: the schedule service refuses moving a close into the past, which
    # only the demo, whose runs were made a moment ago, has reason to do.
    Phase.objects.filter(pk=final.pk).update(closes_at=now, reveal_at=now)
    final_results_release_due(now=now)
    archive = results_archive_create(phase=final, actor=organizer)
    results_archive_build(archive_id=archive.pk)
    archive.refresh_from_db()
    log(f"{final}: closed and revealed; results frozen, archive v{archive.number} built "
        f"({archive.runs} runs, {archive.files} files, sha256 {archive.sha256[:12]}...)")
