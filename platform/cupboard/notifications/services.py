"""Recording notifications when something happens, and sending them from the worker.

Writers call `notify_*`; each records one row per person (unique key: recording the same
news twice makes one mail) and, after COMMIT, sends one Celery message for the batch.
Sending is a job kind of the engine (cupboard.jobs, `NOTIFICATION`, a batch kind):
`notifications_send` (the task's body) claims each row with a fencing token, renders it for
its reader (mails.py), sends the batch over one connection while it beats, and stamps what
went out, each write only while its claim holds, so a duplicate message or a worker taking
over never sends a mail twice. A failure is stored on the row and released;
`notifications_sweep` (beat) sends again what is still unsent MAIL_RETRY_AFTER after its
last try (a lost message, a failed SMTP connection), up to MAIL_MAX_ATTEMPTS tries, and puts
back the rows of a sending worker that died. Recording never raises into its caller: a
broken mail must not cost a submission its state.
"""
from __future__ import annotations

import logging
import uuid
from datetime import datetime, timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.mail import get_connection
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from cupboard.jobs import Claim, JobKind, beating, job_claim, job_enqueue, job_sweep

from .mails import notification_message
from .models import Kind, Notification
from .preferences import users_not_wanting

logger = logging.getLogger(__name__)

MAIL_MAX_ATTEMPTS = 5
# A row unsent this long after it was written or last tried is sent again by the sweeper.
MAIL_RETRY_AFTER = timedelta(seconds=settings.CUPBOARD_MAIL_RETRY_AFTER)
UNSENT = Q(sent_at__isnull=True, skipped="")

NOTIFICATION = JobKind(
    name="mail", model=Notification, task="cupboard.notifications.tasks.send_mail_batch", batch=True,
    waiting=UNSENT & Q(claimed_at__isnull=True), running=UNSENT & Q(claimed_at__isnull=False),
    take={}, put_back={"claimed_at": None},
    resend_after=MAIL_RETRY_AFTER.total_seconds, max_attempts=lambda: MAIL_MAX_ATTEMPTS, sweep_limit=200)


def _record(rows: list[Notification]) -> list[int]:
    """Insert the rows whose (user, key) is new; return their ids (rows recorded before are
    left to their batch or the sweeper)."""
    if not rows:
        return []
    keys, users = {r.key for r in rows}, {r.user_id for r in rows}
    mine = Notification.objects.filter(key__in=keys, user_id__in=users)
    known = set(mine.values_list("user_id", "key"))
    new = [r for r in rows if (r.user_id, r.key) not in known]
    Notification.objects.bulk_create(new, ignore_conflicts=True)  # a concurrent recorder: one row each
    wanted = {(r.user_id, r.key) for r in new}
    return [pk for pk, user_id, key in mine.filter(sent_at__isnull=True).values_list("pk", "user_id", "key")
            if (user_id, key) in wanted]


def notifications_record(rows: list[Notification], *, quiet: bool = True) -> list[int]:
    """Record `rows` and send them once the current transaction commits. Quiet (news of
    something else, e.g. a scoring): never raises, returns [] and logs when recording fails."""
    try:
        with transaction.atomic():
            ids = _record(rows)
    except Exception:  # noqa: BLE001 - a mail is never worth a caller's failure
        if not quiet:
            raise
        logger.exception("notifications not recorded: %s", [r.key for r in rows][:5])
        return []
    job_enqueue(NOTIFICATION, ids)
    return ids


def _members(team) -> list:
    return list(get_user_model().objects.filter(memberships__team=team).exclude(email="").order_by("pk"))


def notify_submission(*, submission_id: int, event: str) -> list[int]:
    """Its team's members (who want them): the submission was `scored`, `rejected` or `failed`.
    A re-scoring with a new judgments release is news again; the same outcome twice is not.
    Called by scoring once the state is stored: never raises (a mail is not worth a scoring)."""
    try:
        return notifications_record(_submission_rows(submission_id=submission_id, event=event))
    except Exception:  # noqa: BLE001
        logger.exception("submission %s: %s mails not recorded", submission_id, event)
        return []


def _submission_rows(*, submission_id: int, event: str) -> list[Notification]:
    from cupboard.submissions.models import Submission

    submission = Submission.objects.select_related("phase__competition", "team").filter(pk=submission_id).first()
    if submission is None or submission.team_id is None:
        return []
    key = f"submission:{submission.pk}:{event}"
    if event == Submission.Status.SCORED:
        key += f":r{submission.qrels_release_id}"
    off = users_not_wanting(kind=Kind.SUBMISSION)
    return [Notification(user=user, kind=Kind.SUBMISSION, event=event, key=key, submission=submission,
                         phase=submission.phase, team=submission.team, competition=submission.phase.competition)
            for user in _members(submission.team) if user.pk not in off]


def team_members_wanting(*, competition, kind: str) -> list:
    """Every member of every team of `competition` with an address who wants mails of `kind`."""
    off = users_not_wanting(kind=kind)
    people = (get_user_model().objects.filter(memberships__team__competition=competition).exclude(email="")
              .distinct().order_by("pk"))
    return [user for user in people if user.pk not in off]


def message_notification(*, user, competition, subject: str, text: str, key: str = "") -> Notification:
    """The organizers' message to one person, unsaved: what the worker renders and sends, and
    what the message page previews (notifications/mails.py)."""
    return Notification(user=user, kind=Kind.MESSAGE, event="message", key=key, competition=competition,
                        subject=subject, text=text)


def notify_teams_message(*, competition, subject: str, text: str, only=None) -> list[int]:
    """The organizers' message to every member (with an address, who wants them) of every team
    of `competition`, one mail each (nobody sees another's address); to `only` (a user) alone
    for a test send. Raises if it cannot be recorded."""
    people = [only] if only is not None else team_members_wanting(competition=competition, kind=Kind.MESSAGE)
    key = f"message:{uuid.uuid4().hex}"
    return notifications_record([message_notification(user=user, competition=competition, subject=subject,
                                                      text=text, key=key) for user in people], quiet=False)


def notify_definition_changed(*, competition, version: int, lines: list[str]) -> list[int]:
    """Every member (with an address, who wants them) of every team of `competition`: these
    deadlines or limits (public diff lines, competitions/changes.py) changed in definition
    `version`. One mail per person and version. Never raises (the change is applied already)."""
    return notifications_record([
        Notification(user=user, kind=Kind.CHANGE, event="changed", key=f"change:{competition.pk}:v{version}",
                     competition=competition, text="\n".join(lines))
        for user in team_members_wanting(competition=competition, kind=Kind.CHANGE)])


def notify_topics_changed(*, phase, version: int, lines: list[str], rescored: bool) -> list[int]:
    """Every member (who wants change mails) of every team of the phase's competition: topics
    `version` of `phase` changed these queries (competitions/topics_changes.py lines, of
    subsets everyone sees), and whether the runs were scored again (the key says it: the mail is
    rendered from the row). One mail per person and version."""
    competition = phase.competition
    return notifications_record([
        Notification(user=user, kind=Kind.CHANGE, event="topics",
                     key=f"topics:{phase.pk}:v{version}{':rescored' if rescored else ''}",
                     competition=competition, phase=phase, text="\n".join(lines))
        for user in team_members_wanting(competition=competition, kind=Kind.CHANGE)])


def deadline_reminders_withdraw(*, phase) -> int:
    """A phase's close moved: its reminders not sent yet name a time that is no longer the
    close (or come a day too early), so they are not sent. The reminder for the new close is
    recorded by the beat task in its own 24 hours (its key holds the close). Returns how many."""
    waiting = UNSENT & Q(claimed_at__isnull=True)  # one a worker is sending now goes out as it is
    return Notification.objects.filter(kind=Kind.DEADLINE, phase=phase).filter(waiting).update(
        skipped="the deadline moved")


def _deadline_key(phase, team) -> str:
    """One reminder per team and close: a close moved is a new reminder, the same close never twice."""
    return f"deadline:{phase.pk}:{team.pk}:{int(phase.closes_at.timestamp())}"


def _deadline_rows(now: datetime) -> list[Notification]:
    """Members of every team with a submission in a phase closing within 24 hours."""
    from cupboard.competitions.models import Phase
    from cupboard.teams.models import Team

    off = users_not_wanting(kind=Kind.DEADLINE)
    rows = []
    phases = Phase.objects.filter(closes_at__gt=now, closes_at__lte=now + timedelta(hours=24), opens_at__lte=now,
                                  competition__is_published=True).select_related("competition")
    for phase in phases:
        for team in Team.objects.filter(submissions__phase=phase, submissions__is_baseline=False).distinct():
            rows += [Notification(user=user, kind=Kind.DEADLINE, event="closing", key=_deadline_key(phase, team),
                                  phase=phase, team=team, competition=phase.competition)
                     for user in _members(team) if user.pk not in off]
    return rows


def _reveal_rows(now: datetime) -> list[Notification]:
    """Participants of competitions whose surprise group was revealed within MAIL_LATE_AFTER
    (older news, e.g. a competition loaded after its reveal, is not mailed)."""
    from cupboard.competitions.models import SubsetGroup

    off = users_not_wanting(kind=Kind.REVEAL)
    late = now - timedelta(seconds=settings.CUPBOARD_MAIL_LATE_AFTER)
    rows = []
    groups = SubsetGroup.objects.filter(reveal_at__lte=now, reveal_at__gt=late,
                                        competition__is_published=True).select_related("competition")
    for group in groups:
        people = (get_user_model().objects.filter(memberships__team__competition=group.competition)
                  .exclude(email="").distinct().order_by("pk"))
        rows += [Notification(user=user, kind=Kind.REVEAL, event="revealed", key=f"reveal:{group.pk}", group=group,
                              competition=group.competition) for user in people if user.pk not in off]
    return rows


def notify_due(*, now: datetime | None = None) -> int:
    """Deadline reminders and reveal announcements that are due (the beat task). Idempotent:
    each is recorded once per person and subject. Returns how many were new."""
    now = now or timezone.now()
    return len(notifications_record(_deadline_rows(now) + _reveal_rows(now)))


def notifications_send(*, notification_ids: list[int], now: datetime | None = None) -> dict[str, int]:
    """Render and send the rows of one batch that are still unsent; returns counts for the log."""
    now = now or timezone.now()
    counts = {"sent": 0, "skipped": 0, "failed": 0}
    claims = {pk: claim for pk in notification_ids if (claim := job_claim(NOTIFICATION, pk, now=now))}
    with beating(list(claims.values())):
        _send(claims, now, counts)
    return counts


def _send(claims: dict[int, Claim], now: datetime, counts: dict) -> None:
    ours = Notification.objects.filter(pk__in=claims, claimed_at=now).select_related(
        "user", "competition", "submission__phase__competition", "submission__team", "phase__competition", "team",
        "group")
    messages = []
    for notification in ours:
        claim = claims[notification.pk]
        try:
            message = notification_message(notification, now=now)
        except Exception as error:  # noqa: BLE001 - a template or data problem: keep the row, say why
            logger.exception("notification %s not rendered", notification.pk)
            counts["failed"] += _release(claim, error)
            continue
        if isinstance(message, str):
            counts["skipped"] += claim.update(skipped=message)
        else:
            messages.append((claim, message))
    if messages:
        _deliver(messages, counts)


def _deliver(messages: list, counts: dict) -> None:
    """One connection for the batch; each message stamped as it goes out."""
    try:
        connection = get_connection()
        connection.open()
    except Exception as error:  # noqa: BLE001 - the SMTP server is down: the sweeper tries again
        logger.warning("mail server unavailable (%s: %s); %s mails wait", type(error).__name__, error, len(messages))
        counts["failed"] += sum(_release(claim, error) for claim, _ in messages)
        return
    try:
        for claim, message in messages:
            try:
                connection.send_messages([message])
            except Exception as error:  # noqa: BLE001
                counts["failed"] += _release(claim, error)
                continue
            counts["sent"] += claim.update(sent_at=timezone.now(), last_error="")
    finally:
        connection.close()


def _release(claim: Claim, error: Exception) -> int:
    # Sent again MAIL_RETRY_AFTER after this try, not at the next sweep.
    return claim.update(claimed_at=None, queued_at=timezone.now(), last_error=f"{type(error).__name__}: {error}"[:300])


def notifications_sweep(*, now: datetime | None = None) -> dict[str, int]:
    """Send again, as one batch message, rows still unsent MAIL_RETRY_AFTER after their last try
    (a lost message, a failed SMTP connection), oldest first; put back those of a sending
    worker that went silent (beat)."""
    return job_sweep(NOTIFICATION, now=now)
