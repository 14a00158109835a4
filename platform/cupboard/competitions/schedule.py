"""Writes that change who sees what, and when: a phase's leaderboard visibility, reveal
instant and hidden judgments, a subset group's reveal (the surprise schedule), and the
removal of a qrels release.

Each change is one audited event (public: the instants it moves are on the competition
page anyway, and participants may check that the schedule was not bent), then the
leaderboards are rebuilt at once, because ranks count only the columns revealed at the
time of a refresh.

Nothing public becomes hidden: a leaderboard shown, judgments downloadable or committed
(their SHA-256 published), a group revealed cannot be taken back, whoever asks. The rule
lives here (`*_refusal`) and every way in applies it: the organizer area, `competition_load`
for a new version of a YAML file, and the admin, which is read-only for these fields and
deletes qrels releases through `qrels_release_delete`.
"""
from __future__ import annotations

import copy
from datetime import datetime

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from cupboard import events
from cupboard.audit.details import named
from cupboard.audit.models import AuditEvent
from cupboard.audit.services import audit_record
from cupboard.competitions.changes import Change
from cupboard.competitions.commitments import competition_publish_due
from cupboard.competitions.errors import CompetitionError
from cupboard.competitions.models import Phase, QrelsRelease, Subset, SubsetGroup
from cupboard.locking import locked

from .events import GroupRevealChanged, PhaseScheduleChanged, QrelsReleaseRemoved

PHASE_SCHEDULE_FIELDS = ("visibility", "reveal_at", "hidden_qrels", "before_reveal")


def _shown(value) -> str | bool | None:
    return value.isoformat() if isinstance(value, datetime) else value


def leaderboard_is_public(phase: Phase, now: datetime) -> bool:
    """Whether anyone may have seen the phase's leaderboard: it has opened and is revealed
    (a live phase that has not opened yet has shown nothing, and may still become private)."""
    return phase.opens_at <= now and phase.is_revealed(now)


def phase_schedule_refusal(phase: Phase, *, wanted: dict, now: datetime) -> CompetitionError | None:
    """Why giving `phase` the schedule `wanted` ({visibility, reveal_at, hidden_qrels}, some
    of them) would hide what is public at `now`; None when it would not."""
    after = copy.copy(phase)
    for name, value in wanted.items():
        setattr(after, name, value)
    if leaderboard_is_public(phase, now) and not leaderboard_is_public(after, now):
        return CompetitionError("leaderboard-already-public",
                                f"the leaderboard of {phase.name} is already public and cannot be hidden again")
    if phase.qrels_are_public(now) and not after.qrels_are_public(now) and phase.qrels_releases.exists():
        return CompetitionError("qrels-already-public",
                                f"the judgments of {phase.name} are already public and cannot be hidden again")
    return None


def group_reveal_refusal(group: SubsetGroup, *, reveal_at: datetime | None, now: datetime) -> CompetitionError | None:
    """Why moving `group`'s reveal to `reveal_at` would hide it again; None when it would not."""
    if group.is_revealed(now) and reveal_at is not None and reveal_at > now:
        return CompetitionError("group-already-revealed",
                                f"the {group.name} group is already revealed and cannot be hidden again")
    return None


def subset_move_refusal(subset: Subset, *, to_revealed: bool, now: datetime) -> CompetitionError | None:
    """Why moving `subset` to a group revealed (`to_revealed`) or not at `now` would hide it
    again: a revealed language put in a group still hidden; None when it would not."""
    if subset.group.is_revealed(now) and not to_revealed:
        return CompetitionError("subset-already-revealed",
                                f"{subset.code} is already revealed and cannot move to a group still hidden")
    return None


def phase_schedule_preview(*, phase: Phase, visibility: str, reveal_at: datetime | None, hidden_qrels: bool,
                           before_reveal: str | None = None, now: datetime | None = None) -> list[Change]:
    """What `phase_schedule_change` would change (the organizer area shows it before it applies);
    raises its refusal (CompetitionError) instead when it would be refused. Writes nothing."""
    wanted = _phase_wanted(phase, visibility=visibility, reveal_at=reveal_at, hidden_qrels=hidden_qrels,
                           before_reveal=before_reveal)
    changes = _phase_diff(phase, wanted)
    refusal = changes and phase_schedule_refusal(phase, wanted=wanted, now=now or timezone.now())
    if refusal:
        raise refusal
    return changes


def _phase_wanted(phase: Phase, *, visibility: str, reveal_at: datetime | None, hidden_qrels: bool,
                  before_reveal: str | None) -> dict:
    if visibility not in Phase.Visibility.values:
        raise CompetitionError("unknown-visibility", f"{visibility!r} is not one of {', '.join(Phase.Visibility.values)}")
    if before_reveal and before_reveal not in Phase.BeforeReveal.values:
        raise CompetitionError("unknown-before-reveal",
                               f"{before_reveal!r} is not one of {', '.join(Phase.BeforeReveal.values)}")
    return {"visibility": visibility, "reveal_at": reveal_at, "hidden_qrels": hidden_qrels,
            "before_reveal": before_reveal or phase.before_reveal}


def _phase_diff(phase: Phase, wanted: dict) -> list[Change]:
    return [Change(f"phases.{phase.slug}.{name}", getattr(phase, name), wanted[name])
            for name in PHASE_SCHEDULE_FIELDS if getattr(phase, name) != wanted[name]]


def phase_schedule_change(*, phase: Phase, actor: User | None, visibility: str, reveal_at: datetime | None,
                          hidden_qrels: bool, before_reveal: str | None = None, now: datetime | None = None) -> Phase:
    """Set a phase's `visibility`, `reveal_at`, `hidden_qrels` and what participants see before
    the reveal (`before_reveal`, empty = unchanged); audited, leaderboard refreshed.

    Nothing changed: nothing written. Refused with `unknown-visibility`, with
    `leaderboard-already-public` when its leaderboard has been shown and would not be
    afterwards (live to private before the reveal, a reveal moved into the future), or with
    `qrels-already-public` when its released judgments are downloadable now and would not be."""
    now = now or timezone.now()
    _phase_wanted(phase, visibility=visibility, reveal_at=reveal_at, hidden_qrels=hidden_qrels,
                  before_reveal=before_reveal)
    with transaction.atomic():
        # The phase row is the lock: two organizers saving at once apply one after the other.
        phase = locked(Phase.objects.select_related("competition")).get(pk=phase.pk)
        wanted = _phase_wanted(phase, visibility=visibility, reveal_at=reveal_at, hidden_qrels=hidden_qrels,
                               before_reveal=before_reveal)
        before = {name: getattr(phase, name) for name in PHASE_SCHEDULE_FIELDS}
        changed = [change.key for change in _phase_diff(phase, wanted)]
        if not changed:
            return phase
        refusal = phase_schedule_refusal(phase, wanted=wanted, now=now)
        if refusal is not None:
            raise refusal
        for name in changed:
            setattr(phase, name, wanted[name])
        phase.save(update_fields=changed)
        visibility_moved = {"visibility", "reveal_at"} & set(changed)
        action = AuditEvent.Action.VISIBILITY_CHANGED if visibility_moved else AuditEvent.Action.PHASE_CHANGED
        audit_record(competition=phase.competition, actor=actor, action=action, is_public=True,
                     summary=f"{phase.name}: " + "; ".join(
                         f"{name} {_shown(before[name])} -> {_shown(wanted[name])}" for name in changed),
                     details={**named("phase", phase.slug, phase.name), "before": {n: _shown(before[n]) for n in changed},
                              "after": {n: _shown(wanted[n]) for n in changed}})
        competition_publish_due(competition=phase.competition, now=now)
        events.send(PhaseScheduleChanged(phase=phase))  # its leaderboard (cupboard/flows/schedule_changed.py)
    return phase


def group_reveal_preview(*, group: SubsetGroup, reveal_at: datetime | None, now: datetime | None = None) -> list[Change]:
    """What `group_reveal_change` would change, shown before it applies; raises its refusal instead."""
    if group.reveal_at == reveal_at:
        return []
    refusal = group_reveal_refusal(group, reveal_at=reveal_at, now=now or timezone.now())
    if refusal is not None:
        raise refusal
    return [Change(f"groups.{group.name}.reveal_at", group.reveal_at, reveal_at)]


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
        refusal = group_reveal_refusal(group, reveal_at=reveal_at, now=now)
        if refusal is not None:
            raise refusal
        group.reveal_at = reveal_at
        group.save(update_fields=["reveal_at"])
        # Only the group's name and instants: its subsets' codes may still be a secret.
        audit_record(competition=group.competition, actor=actor, action=AuditEvent.Action.VISIBILITY_CHANGED,
                     is_public=True,
                     summary=f"Reveal of the {group.name} group: {_shown(before) or 'none'} -> {_shown(reveal_at) or 'now'}",
                     details={"group": group.name, "before": _shown(before), "after": _shown(reveal_at)})
        # Phases (3) before the competition row (4): the lock order of cupboard/locking.py.
        events.send(GroupRevealChanged(group=group))  # the leaderboards (cupboard/flows/schedule_changed.py)
        competition_publish_due(competition=group.competition, now=now)
    return group


def qrels_release_is_public(release: QrelsRelease, now: datetime) -> bool:
    """Whether a release's files are downloadable, or their SHA-256 published on the
    commitments page and in the audit log (hidden judgments, from the competition's start)."""
    phase = release.phase
    return phase.qrels_are_public(now) or (phase.hidden_qrels and now >= phase.competition.starts_at)


def qrels_release_delete(*, release: QrelsRelease, actor: User | None, now: datetime | None = None) -> None:
    """Remove a release nobody has seen (e.g. uploaded to the wrong phase); audited for the
    organizers. Refused with `qrels-already-public` once its files or hashes are public:
    removing it would take 18 published SHA-256 off the commitments page."""
    now = now or timezone.now()
    with transaction.atomic():
        phase = locked(Phase.objects.select_related("competition")).get(pk=release.phase_id)
        release = QrelsRelease.objects.select_related("phase__competition").get(pk=release.pk)
        if qrels_release_is_public(release, now):
            raise CompetitionError("qrels-already-public", f"qrels v{release.number} of {phase.name} are public "
                                                           "(files or SHA-256) and cannot be removed")
        audit_record(competition=phase.competition, actor=actor, action=AuditEvent.Action.PHASE_CHANGED,
                     summary=f"{phase.name}: qrels v{release.number} removed before anyone saw it",
                     details={**named("phase", phase.slug, phase.name), "removed_release": release.number})
        release.delete()
        events.send(QrelsReleaseRemoved(phase=phase))  # its leaderboard (cupboard/flows/schedule_changed.py)

