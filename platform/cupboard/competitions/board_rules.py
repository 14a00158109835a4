"""A phase's board rules set from the organizer area: its freeze (`freeze_at`) and the Ladder
(`ladder`), as the definition's keys of the same names set them on a load.

Shown as a diff before it applies (`phase_board_rules_preview`), audited in the public log,
and the phase's leaderboard rebuilt (the Ladder changes which run each team shows). Refused
where it would contradict the definition's own checks (a freeze outside the phase, the
Ladder on a phase not ranked by best) or hide what the public has already seen: a freeze that
would start in the past, earlier than the board has been frozen, rolls the public board back.
"""
from __future__ import annotations

from datetime import datetime

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from cupboard import events
from cupboard.audit.details import named
from cupboard.audit.models import AuditEvent
from cupboard.audit.services import audit_record
from cupboard.competitions.changes import Change
from cupboard.competitions.errors import CompetitionError
from cupboard.competitions.models import Phase
from cupboard.locking import locked

from .events import PhaseScheduleChanged

BOARD_RULE_FIELDS = ("freeze_at", "ladder")


def board_rules_refusal(phase: Phase, *, freeze_at: datetime | None, ladder: bool, now: datetime) -> CompetitionError | None:
    """Why `phase` may not get these rules at `now`; None when it may."""
    if freeze_at is not None and not phase.opens_at < freeze_at < phase.closes_at:
        return CompetitionError("freeze-outside-phase", "the freeze must start after the phase opens and before it closes")
    if ladder and phase.ranking != Phase.Ranking.BEST:
        return CompetitionError("ladder-needs-best", f"the Ladder replaces a team's best: {phase.name} ranks by "
                                                     f"{phase.ranking}, not best")
    if freeze_at is not None and freeze_at < now and (phase.freeze_at is None or freeze_at < phase.freeze_at):
        return CompetitionError("leaderboard-already-public", f"the leaderboard of {phase.name} has been public since "
                                                              "then: a freeze cannot start in the past")
    return None


def _changes(phase: Phase, wanted: dict) -> list[Change]:
    return [Change(f"phases.{phase.slug}.{name}", getattr(phase, name), wanted[name])
            for name in BOARD_RULE_FIELDS if getattr(phase, name) != wanted[name]]


def phase_board_rules_preview(*, phase: Phase, freeze_at: datetime | None, ladder: bool,
                              now: datetime | None = None) -> list[Change]:
    """What `phase_board_rules_change` would change; raises its refusal instead. Writes nothing."""
    changes = _changes(phase, {"freeze_at": freeze_at, "ladder": ladder})
    refusal = changes and board_rules_refusal(phase, freeze_at=freeze_at, ladder=ladder, now=now or timezone.now())
    if refusal:
        raise refusal
    return changes


def phase_board_rules_change(*, phase: Phase, actor: User | None, freeze_at: datetime | None, ladder: bool,
                             now: datetime | None = None) -> Phase:
    """Set the phase's freeze and Ladder; nothing changed, nothing written (see the module docstring)."""
    now = now or timezone.now()
    with transaction.atomic():
        # The phase row is the lock: the same as a schedule edit's and a leaderboard write's.
        phase = locked(Phase.objects.select_related("competition")).get(pk=phase.pk)
        changes = _changes(phase, {"freeze_at": freeze_at, "ladder": ladder})
        if not changes:
            return phase
        refusal = board_rules_refusal(phase, freeze_at=freeze_at, ladder=ladder, now=now)
        if refusal is not None:
            raise refusal
        phase.freeze_at, phase.ladder = freeze_at, ladder
        phase.save(update_fields=[change.key for change in changes])
        audit_record(competition=phase.competition, actor=actor, action=AuditEvent.Action.PHASE_CHANGED,
                     is_public=True, summary=f"{phase.name}: " + "; ".join(c.line() for c in changes),
                     details={**named("phase", phase.slug, phase.name), "changes": [c.data() for c in changes]})
        events.send(PhaseScheduleChanged(phase=phase))  # its leaderboard rebuilt (cupboard/flows/schedule_changed.py)
    return phase
