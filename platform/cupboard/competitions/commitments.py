"""Public promises about hidden judgments, written when their instant has passed.

From the competition's start, the SHA-256 of every hidden qrels file is public (event
`qrels_committed`, one per release); from a phase's `reveal_at` the files themselves are
(event `qrels_revealed`). Nobody has to be at the keyboard: what may be downloaded is
derived from the clock (`Phase.qrels_are_public`), and the events are written by
`competition_publish_due`, which is idempotent and runs from the periodic task
`publish_due_events` (and after qrels releases and schedule changes); pages never write.

A surprise subset still hidden when its commitment is written appears in the event
without its code: the hash alone says nothing about the language, and the commitments
page (derived live) names it after its group's reveal.
"""
from __future__ import annotations

from datetime import datetime

from django.db import transaction
from django.utils import timezone

from cupboard.audit.details import named
from cupboard.audit.models import AuditEvent
from cupboard.audit.services import audit_record
from cupboard.competitions.models import Competition, QrelsRelease
from cupboard.locking import locked


def competition_publish_due(*, competition: Competition, now: datetime | None = None) -> list[AuditEvent]:
    """Write the commitment and reveal events that are due and not yet written; return them."""
    now = now or timezone.now()
    if now < competition.starts_at:
        return []
    written = []
    with transaction.atomic():
        # The competition row serialises publishers, so each event is written once.
        locked(Competition.objects.filter(pk=competition.pk)).exists()
        events = AuditEvent.objects.filter(competition=competition)
        committed = set(events.filter(action=AuditEvent.Action.QRELS_COMMITTED)
                        .values_list("details__release_id", flat=True))
        revealed = set(events.filter(action=AuditEvent.Action.QRELS_REVEALED)
                       .values_list("details__phase_id", flat=True))
        releases = (QrelsRelease.objects.filter(phase__competition=competition, phase__hidden_qrels=True)
                    .select_related("phase").prefetch_related("files__subset__group").order_by("phase__position", "number"))
        for release in releases:
            if release.pk not in committed:
                written.append(_commit(competition, release, now))
            phase = release.phase
            if phase.qrels_are_public(now) and phase.pk not in revealed:
                revealed.add(phase.pk)
                written.append(audit_record(
                    competition=competition, actor=None, action=AuditEvent.Action.QRELS_REVEALED, is_public=True,
                    summary=f"Judgments of {phase.name} are public for download",
                    details={**named("phase", phase.slug, phase.name), "phase_id": phase.pk}))
    return written


def _commit(competition: Competition, release: QrelsRelease, now: datetime) -> AuditEvent:
    files = [{"subset": f.subset.code if f.subset.group.is_revealed(now) else None, "sha256": f.sha256}
             for f in release.files.all()]
    # Hidden subsets go last in hash order, so not even their position hints at a code.
    files.sort(key=lambda f: (f["subset"] is None, f["subset"] or f["sha256"]))
    return audit_record(
        competition=competition, actor=None, action=AuditEvent.Action.QRELS_COMMITTED, is_public=True,
        summary=f"SHA-256 of {release.phase.name} qrels v{release.number} published ({len(files)} files)",
        details={**named("phase", release.phase.slug, release.phase.name), "release": release.number, "release_id": release.pk, "files": files})


def publish_due_everywhere(*, now: datetime | None = None) -> int:
    """Run `competition_publish_due` for every started competition; the periodic task calls this."""
    now = now or timezone.now()
    return sum(len(competition_publish_due(competition=c, now=now))
               for c in Competition.objects.filter(starts_at__lte=now))
