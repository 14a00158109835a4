"""Organizers' messages to every team of a competition, by e-mail: the same path as every
mail of cupboard (services.py): one `Notification` per person (so no member sees
another's address), sent by the worker after COMMIT and retried while the mail server is
down. Audited with the subject and the number of people it goes to, never the addresses.
"""
from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from cupboard.audit.models import AuditEvent
from cupboard.audit.services import audit_record
from cupboard.bidi import isolate
from cupboard.competitions.models import Competition
from cupboard.teams.models import Team

from .mails import notification_render
from .models import Kind
from .services import message_notification, notify_teams_message, team_members_wanting


def _check(competition: Competition, actor: AbstractBaseUser, subject: str, body: str) -> None:
    if not competition.is_organizer(actor):
        raise ValidationError("Only organizers can message the teams.", code="not_organizer")
    if not subject.strip() or not body.strip():
        raise ValidationError("A message needs a subject and a text.", code="empty_message")


def teams_message_preview(*, competition: Competition, actor: AbstractBaseUser, subject: str, body: str) -> dict:
    """The mail as `actor` would get it (subject, text: every member gets the same but for their
    own unsubscribe link) and how many people "send to every team" reaches now; sends nothing.
    A message to every team cannot be taken back, so the page shows this before its send button."""
    _check(competition, actor, subject, body)
    notification = message_notification(user=actor, competition=competition, subject=subject.strip(),
                                        text=body.strip())
    mail = notification_render(notification, now=timezone.now())
    return {"subject": getattr(mail, "subject", ""), "body": getattr(mail, "body", ""),
            "people": len(team_members_wanting(competition=competition, kind=Kind.MESSAGE))}


def teams_message_to_self(*, competition: Competition, actor: AbstractBaseUser, subject: str, body: str) -> None:
    """The message to `actor` alone, by the same path as to every team (the worker, the mail
    server): a test send. Not audited, it reaches nobody else."""
    _check(competition, actor, subject, body)
    if not actor.email:
        raise ValidationError("Your account has no e-mail address to send the test to: add one on your profile.",
                              code="no_address")
    notify_teams_message(competition=competition, subject=subject.strip(), text=body.strip(), only=actor)


def teams_message(*, competition: Competition, actor: AbstractBaseUser, subject: str, body: str) -> int:
    """E-mail `subject` and `body` to every member (with an address, who did not turn these
    off) of every team of the competition; returns how many people it goes to. Organizers and
    staff only."""
    _check(competition, actor, subject, body)
    with transaction.atomic():
        people = len(notify_teams_message(competition=competition, subject=subject.strip(), text=body.strip()))
        audit_record(competition=competition, actor=actor, action=AuditEvent.Action.TEAMS_MESSAGED,
                     summary=f"Message to the teams ({people} people): {isolate(subject.strip())}",
                     details={"subject": subject.strip(), "people": people,
                              "teams": Team.objects.filter(competition=competition).count()})
    return people
