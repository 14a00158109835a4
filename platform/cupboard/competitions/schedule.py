"""Writes that change who sees what, and when: a phase's leaderboard visibility, reveal
instant and hidden judgments, and a subset group's reveal (the surprise schedule).

Each change is one audited event (public: the instants it moves are on the competition
page anyway, and participants may check that the schedule was not bent), then the
leaderboards are rebuilt at once, because ranks count only the columns revealed at the
time of a refresh. A change that would hide again what is already public is refused:
judgments downloaded or languages uploaded to cannot be taken back.
"""
from __future__ import annotations

from datetime import datetime

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from cupboard.audit.models import AuditEvent
from cupboard.audit.services import audit_record
from cupboard.competitions.commitments import competition_publish_due
from cupboard.competitions.errors import CompetitionError
from cupboard.competitions.models import Phase, SubsetGroup
from cupboard.locking import locked

PHASE_SCHEDULE_FIELDS = ("visibility", "reveal_at", "hidden_qrels")


def _shown(value) -> str | bool | None:
    return value.isoformat() if isinstance(value, datetime) else value


def phase_schedule_change(*, phase: Phase, actor: User | None, visibility: str, reveal_at: datetime | None,
                          hidden_qrels: bool, now: datetime | None = None) -> Phase:
    """Set a phase's `visibility`, `reveal_at` and `hidden_qrels`; audited, leaderboard refreshed.

    Nothing changed: nothing written. Refused with `unknown-visibility`, or with
    `qrels-already-public` when the phase's released judgments are downloadable now and
    would not be afterwards."""
    if visibility not in Phase.Visibility.values:
        raise CompetitionError("unknown-visibility", f"{visibility!r} is not one of {', '.join(Phase.Visibility.values)}")
    now = now or timezone.now()
    wanted = {"visibility": visibility, "reveal_at": reveal_at, "hidden_qrels": hidden_qrels}
    with transaction.atomic():
        # The phase row is the lock: two organizers saving at once apply one after the other.
        phase = locked(Phase.objects.select_related("competition")).get(pk=phase.pk)
        before = {name: getattr(phase, name) for name in PHASE_SCHEDULE_FIELDS}
        changed = [name for name in PHASE_SCHEDULE_FIELDS if before[name] != wanted[name]]
        if not changed:
            return phase
        was_public = phase.qrels_are_public(now)
        for name in changed:
            setattr(phase, name, wanted[name])
        if was_public and not phase.qrels_are_public(now) and phase.qrels_releases.exists():
            raise CompetitionError("qrels-already-public",
                                   f"the judgments of {phase.name} are already public and cannot be hidden again")
        phase.save(update_fields=changed)
        visibility_moved = {"visibility", "reveal_at"} & set(changed)
        action = AuditEvent.Action.VISIBILITY_CHANGED if visibility_moved else AuditEvent.Action.PHASE_CHANGED
        audit_record(competition=phase.competition, actor=actor, action=action, is_public=True,
                     summary=f"{phase.name}: " + "; ".join(
                         f"{name} {_shown(before[name])} -> {_shown(wanted[name])}" for name in changed),
                     details={"phase": phase.slug, "before": {n: _shown(before[n]) for n in changed},
                              "after": {n: _shown(wanted[n]) for n in changed}})
        competition_publish_due(competition=phase.competition, now=now)
        _refresh(phase.competition.phases.filter(pk=phase.pk))
    return phase


def group_reveal_change(*, group: SubsetGroup, actor: User | None, reveal_at: datetime | None,
                        now: datetime | None = None) -> SubsetGroup:
    """Move a subset group's reveal instant (empty = visible from now on); audited, every
    phase's leaderboard refreshed. Refused with `group-already-revealed` when the group is
    visible now and the new instant lies in the future."""
    now = now or timezone.now()
    with transaction.atomic():
        group = locked(SubsetGroup.objects.select_related("competition")).get(pk=group.pk)
        before = group.reveal_at
        if before == reveal_at:
            return group
        if group.is_revealed(now) and reveal_at is not None and reveal_at > now:
            raise CompetitionError("group-already-revealed",
                                   f"the {group.name} group is already revealed and cannot be hidden again")
        group.reveal_at = reveal_at
        group.save(update_fields=["reveal_at"])
        # Only the group's name and instants: its subsets' codes may still be a secret.
        audit_record(competition=group.competition, actor=actor, action=AuditEvent.Action.VISIBILITY_CHANGED,
                     is_public=True,
                     summary=f"Reveal of the {group.name} group: {_shown(before) or 'none'} -> {_shown(reveal_at) or 'now'}",
                     details={"group": group.name, "before": _shown(before), "after": _shown(reveal_at)})
        # Phases (3) before the competition row (4): the lock order of cupboard/locking.py.
        _refresh(group.competition.phases.all())
        competition_publish_due(competition=group.competition, now=now)
    return group


def _refresh(phases) -> None:
    from cupboard.leaderboards.services import leaderboard_refresh

    for phase in phases:
        leaderboard_refresh(phase=phase)
