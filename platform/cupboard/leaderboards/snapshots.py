"""The official results of a final phase, frozen when its leaderboard is revealed.

At the reveal the ranked table is rendered once, as the public sees it then (an anonymous
`Viewer` at that instant: rounded values, revealed columns only), with every counted run of
each team beside its board row (unranked: leaderboards/every_run.py), as CSV and JSON by the
same exports as the live leaderboard (leaderboards/exports.py, cupboard/csvexport.py). Both
files, and the per-query values behind them (leaderboards/frozen_queries.py, never served), are
stored on a `FrozenSnapshot` row that is never changed, and their SHA-256 go in
the public audit log, so anyone can check that a copy is the one published. Re-scorings
after the reveal (a new qrels version) change the live table beside it, never the snapshot.
Nothing is frozen while the phase is being re-scored (an open step: leaderboards/rescoring.py);
the snapshot names the scoring version it was built from (`scoring_version`).
"""
from __future__ import annotations

import hashlib
import json
from datetime import datetime

from django.db import transaction

from cupboard.audit.details import named
from cupboard.audit.models import AuditEvent
from cupboard.audit.services import audit_record
from cupboard.competitions.models import Phase
from cupboard.competitions.viewer import Viewer
from cupboard.jsonexport import json_text
from cupboard.leaderboards.bands import bands_updating
from cupboard.leaderboards.exports import leaderboard_csv, leaderboard_json
from cupboard.leaderboards.frozen_queries import frozen_queries
from cupboard.leaderboards.models import FrozenSnapshot
from cupboard.leaderboards.selectors import leaderboard_for
from cupboard.leaderboards.services import leaderboard_bump, leaderboard_retest
from cupboard.locking import locked
from cupboard.submissions.steps import open_step, scoring_version


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def snapshot_freeze(*, phase: Phase, now: datetime) -> FrozenSnapshot | None:
    """The phase's snapshot: frozen now if there is none yet (and the public may see the
    leaderboard at `now`, and the phase is not being re-scored), with its public audit event.
    Running it twice changes nothing."""
    with transaction.atomic():
        phase = locked(Phase.objects.select_related("competition")).get(pk=phase.pk)
        existing = FrozenSnapshot.objects.filter(phase=phase).first()
        if existing is not None:
            return existing
        if open_step(phase) is not None:
            return None  # frozen from the new scores once the step is published
        if bands_updating(phase):  # the official results carry the bands of every run in them
            leaderboard_retest(phase=phase)
        version = scoring_version(phase)
        leaderboard = leaderboard_for(phase=phase, viewer=Viewer(None, phase.competition, now), every_run=True)
        if not leaderboard.visible:
            return None
        data = {"frozen_at": now, "scoring_version": version, **leaderboard_json(leaderboard)}
        csv, body = leaderboard_csv(leaderboard), json_text(data, indent=1)
        snapshot = FrozenSnapshot.objects.create(
            phase=phase, frozen_at=now, qrels_release_number=leaderboard.qrels_version, scoring_version=version,
            csv=csv, json=body,
            csv_sha256=sha256(csv), json_sha256=sha256(body),
            per_query=json.dumps(frozen_queries(leaderboard), separators=(",", ":")))
        leaderboard_bump(phase=phase)  # cached pages name the snapshot: they are built again
        audit_record(
            competition=phase.competition, actor=None, action=AuditEvent.Action.RESULTS_FROZEN, is_public=True,
            summary=f"Official results of {phase.name} frozen ({len(leaderboard.entries)} rows): "
                    f"CSV sha256 {snapshot.csv_sha256}, JSON sha256 {snapshot.json_sha256}",
            details={**named("phase", phase.slug, phase.name), "phase_id": phase.pk, "csv_sha256": snapshot.csv_sha256,
                     "json_sha256": snapshot.json_sha256, "qrels_version": snapshot.qrels_release_number,
                     "scoring_version": version})
    return snapshot


def official_snapshot(phase: Phase, viewer: Viewer) -> FrozenSnapshot | None:
    """The phase's frozen snapshot (without its files' text) when the viewer may see the
    leaderboard now; else None, like the leaderboard itself."""
    if not viewer.sees_official_results(phase):
        return None  # only revealed final phases have one: other pages ask nothing
    return FrozenSnapshot.objects.filter(phase=phase).defer("csv", "json", "per_query").first()
