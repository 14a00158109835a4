"""What happens when a final phase's results are released (or a round's, `official_results`): its leaderboard's reveal
instant passes. Nobody has to be at the keyboard: the beat task `publish_due_events` calls
`final_results_release_due`, which freezes the official snapshot (leaderboards/snapshots.py)
and asks a second engine to verify every official score (submissions/verification.py),
each once per phase however often it runs. A phase being re-scored (an open `RescoreStep`)
is left for later: it is frozen and verified from the new scores once the step is published
(leaderboards/rescoring.py), never from a half-finished re-score."""
from __future__ import annotations

from datetime import datetime

from django.db.models import Q
from django.utils import timezone

from cupboard.competitions.models import Phase


def final_results_release_due(*, now: datetime | None = None) -> int:
    """Freeze and verify every published final phase revealed at or before `now`; returns
    how many snapshots were frozen by this call."""
    from cupboard.submissions.models import Verification
    from cupboard.submissions.steps import open_step
    from cupboard.submissions.verification import verification_request

    from .models import FrozenSnapshot
    from .paper_marks import snapshot_marks_store
    from .snapshots import snapshot_freeze

    now = now or timezone.now()
    frozen = 0
    due = Phase.objects.filter(Q(is_final=True) | Q(official_results=True), reveal_at__lte=now,
                               competition__is_published=True, competition__starts_at__lte=now).select_related("competition")
    for phase in due:
        if not phase.is_revealed(now) or open_step(phase) is not None:
            continue
        if not FrozenSnapshot.objects.filter(phase=phase).exists():
            snapshot = snapshot_freeze(phase=phase, now=now)
            if snapshot is not None:
                frozen += 1
                snapshot_marks_store(snapshot)  # the paper tables' marks, once, here rather than in a request
        if not phase.verifications.filter(reason=Verification.Reason.REVEAL).exists():
            verification_request(phase=phase, actor=None, reason=Verification.Reason.REVEAL)
    return frozen
