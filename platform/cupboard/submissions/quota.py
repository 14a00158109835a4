"""Submission limits per team per phase: per UTC day and in total, plus organizer grants.

Counting uses `Submission.COUNTS_TOWARD_LIMIT`, so rejected and failed-by-the-platform
submissions never cost a slot. Limits hold against people, not only teams (Kaggle's rule):
a submission counts against its team and against every later team of each person who was
in the team when it was made, so a new or merged team starts at the usage of its members
(each submission once) and leaving a team resets nothing. `quota_check` must run while the
team row is locked (see `submission_create`), which is what makes the cap hold under
concurrent uploads; team joins and leaves take the same lock.
"""
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from datetime import timezone as dt_timezone

from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Count, Q, QuerySet, Sum

from cupboard.audit.details import named
from cupboard.audit.models import AuditEvent
from cupboard.audit.services import audit_record
from cupboard.bidi import isolate
from cupboard.competitions.models import Phase
from cupboard.locking import locked
from cupboard.teams.models import Membership, Team

from .errors import SubmissionRefused
from .models import QuotaGrant, Submission


@dataclass(frozen=True)
class QuotaStatus:
    """Limits are None when the phase sets none; `next_slot_at` is None when no slot will open."""

    used_today: int
    daily_limit: int | None
    used_total: int
    total_limit: int | None
    next_slot_at: datetime | None

    def __iter__(self):
        # Unpacks as (used_today, daily_limit, used_total, total_limit, next_slot_at).
        return iter((self.used_today, self.daily_limit, self.used_total, self.total_limit, self.next_slot_at))

    @property
    def left_today(self) -> int | None:
        return None if self.daily_limit is None else max(0, self.daily_limit - self.used_today)

    @property
    def left_total(self) -> int | None:
        return None if self.total_limit is None else max(0, self.total_limit - self.used_total)

    @property
    def can_submit(self) -> bool:
        return self.left_today != 0 and self.left_total != 0


def upload_blocked(*, phase: Phase, team: Team | None, quota: QuotaStatus | None, organizer: bool,
                   now: datetime) -> str:
    """Why the upload form is disabled for this person now, or "" when it is not: the same
    refusals `submission_create` would give, said before a file is chosen. Organizers may
    always upload (baselines)."""
    if organizer:
        return ""
    if not phase.is_open(now):
        return "This phase is not accepting submissions now."
    if team is None:
        return "You are not in a team in this competition: create or join one before submitting."
    refusal = quota_refusal(quota) if quota is not None else None
    return refusal[0] if refusal else ""


def quota_refusal(status: QuotaStatus) -> tuple[str, str] | None:
    """(message, code) when the team has no slot left, else None."""
    if status.left_total == 0:
        return f"Your team used all {status.total_limit} submissions of this phase.", "total_limit"
    if status.left_today == 0:
        when = f" The next slot opens at {status.next_slot_at:%Y-%m-%d %H:%M} UTC." if status.next_slot_at else ""
        return f"Your team used all {status.daily_limit} submissions of today (UTC).{when}", "daily_limit"
    return None


def utc_day_start(now: datetime) -> datetime:
    return datetime.combine(now.astimezone(dt_timezone.utc).date(), time.min, tzinfo=dt_timezone.utc)


def _extra(*, phase: Phase, team: Team, day: date | None) -> int:
    grants = QuotaGrant.objects.filter(phase=phase, team=team, day=day)
    return grants.aggregate(extra=Sum("extra"))["extra"] or 0


def counted_submissions(*, phase: Phase, team: Team, joining: tuple = (),
                        merging: Team | None = None) -> QuerySet[Submission]:
    """The phase's submissions that count against `team` (with `joining` users, or the whole
    `merging` team, added to it): its own, and every one made while one of these people was in
    the submitting team."""
    teams = [team] if merging is None else [team, merging]
    people = [*Membership.objects.filter(team__in=teams).values_list("user_id", flat=True), *(u.pk for u in joining)]
    carried = Submission.members.through.objects.filter(user_id__in=people).values("submission_id")
    return Submission.objects.filter(Q(team__in=teams) | Q(pk__in=carried), phase=phase,
                                     status__in=Submission.COUNTS_TOWARD_LIMIT)


def quota_status(*, phase: Phase, team: Team, now: datetime, joining: tuple = (),
                 merging: Team | None = None) -> QuotaStatus:
    """How many submissions the team used today (UTC) and in total, its limits with grants, and
    when its next slot opens (now, the next UTC midnight, or never). With `joining` (users) or
    `merging` (a team), the same for the team they would make it."""
    day_start = utc_day_start(now)
    counted = counted_submissions(phase=phase, team=team, joining=joining, merging=merging)
    used_total = counted.count()
    used_today = counted.filter(created_at__gte=day_start, created_at__lt=day_start + timedelta(days=1)).count()
    daily_limit = None if phase.daily_limit is None else \
        phase.daily_limit + _extra(phase=phase, team=team, day=day_start.date())
    total_limit = None if phase.total_limit is None else phase.total_limit + _extra(phase=phase, team=team, day=None)
    if total_limit is not None and used_total >= total_limit:
        next_slot_at = None
    elif daily_limit is not None and used_today >= daily_limit:
        next_slot_at = day_start + timedelta(days=1)
    else:
        next_slot_at = now
    if next_slot_at is not None and next_slot_at >= phase.closes_at:
        next_slot_at = None
    return QuotaStatus(used_today, daily_limit, used_total, total_limit, next_slot_at)


def quota_overruns(*, team: Team, now: datetime, joining: tuple = (),
                   merging: Team | None = None) -> list[tuple[Phase, QuotaStatus]]:
    """The phases still open where the team, with `joining` users or the `merging` team added,
    would have used more than its limits: such a join or merge is refused, as on Kaggle."""
    overruns = []
    for phase in team.competition.phases.filter(closes_at__gt=now).order_by("position"):
        status = quota_status(phase=phase, team=team, now=now, joining=joining, merging=merging)
        if (status.daily_limit is not None and status.used_today > status.daily_limit) or \
                (status.total_limit is not None and status.used_total > status.total_limit):
            overruns.append((phase, status))
    return overruns


def quota_refuse_overrun(*, team: Team, now: datetime, joining: tuple = (), merging: Team | None = None) -> None:
    """Refuse a join (`joining` users) or a merge (`merging` team) that would take `team` past a
    limit of a phase still open (`quota_overruns`): a team change (teams/services.py) asks
    through cupboard/flows/team_changed.py."""
    overruns = quota_overruns(team=team, now=now, joining=joining, merging=merging)
    if overruns:
        phase, status = overruns[0]
        who = "With you" if merging is None else f"Merged with {merging.name}"
        raise ValidationError(
            f"{who}, {team.name} would have used {status.used_total} submissions of {phase.name} "
            f"({status.used_today} today), more than its limits allow: the submissions people made in "
            "other teams count in every team they join.", code="over_limit")


def quota_carried(*, team: Team, user: AbstractBaseUser) -> dict[str, int]:
    """{phase slug: submissions} the user made with this team and takes along (counted against
    limits), for the audit summary of their leaving."""
    rows = (Submission.objects.filter(team=team, members=user, status__in=Submission.COUNTS_TOWARD_LIMIT)
            .values("phase__slug").annotate(n=Count("pk")))
    return {row["phase__slug"]: row["n"] for row in rows}


def quota_check(*, phase: Phase, team: Team, now: datetime) -> None:
    """Refuse when the team has no slot left. Call with the team row locked."""
    refusal = quota_refusal(quota_status(phase=phase, team=team, now=now))
    if refusal is not None:
        raise SubmissionRefused(refusal[0], code=refusal[1])


@transaction.atomic
def quota_grant(*, team: Team, phase: Phase, extra: int, day: date | None, reason: str,
                actor: AbstractBaseUser) -> QuotaGrant:
    """Give a team `extra` slots on one UTC day (or for the whole phase when `day` is None); audited."""
    if not phase.competition.is_organizer(actor):
        raise SubmissionRefused("Only organizers can grant extra submissions.", code="not_organizer")
    if team.competition_id != phase.competition_id:
        raise SubmissionRefused("This team is not in this competition.", code="wrong_competition")
    if extra < 1 or not reason.strip():
        raise SubmissionRefused("A grant needs at least one slot and a reason.", code="bad_grant")
    locked(Team.objects).get(pk=team.pk)  # a grant and an upload of this team apply in turn (cupboard/locking.py)
    grant = QuotaGrant.objects.create(team=team, phase=phase, extra=extra, day=day, reason=reason.strip(),
                                      granted_by=actor)
    span = f"on {day:%Y-%m-%d}" if day else "for the phase"
    audit_record(competition=phase.competition, actor=actor, action=AuditEvent.Action.LIMIT_GRANTED,
                 summary=f"+{extra} submissions {span} for {isolate(team.name)} in {phase.name}: {isolate(reason.strip())}",
                 details={**named("team", team.pk, team.name), **named("phase", phase.pk, phase.name), "extra": extra, "day": day.isoformat() if day else None})
    return grant
