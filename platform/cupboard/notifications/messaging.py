"""Organizers' messages to every team of a competition, by e-mail: the same path as every
mail of cupboard (services.py): one `Notification` per person (so no member sees
another's address), sent by the worker after COMMIT and retried while the mail server is
down. Audited with the subject and the number of people it goes to, never the addresses.
"""
from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.db import transaction

from cupboard.audit.models import AuditEvent
from cupboard.audit.services import audit_record
from cupboard.competitions.models import Competition
from cupboard.teams.models import Team

from .services import notify_teams_message


def teams_message(*, competition: Competition, actor: AbstractBaseUser, subject: str, body: str) -> int:
    """E-mail `subject` and `body` to every member (with an address, who did not turn these
    off) of every team of the competition; returns how many people it goes to. Organizers and
    staff only."""
    if not competition.is_organizer(actor):
        raise ValidationError("Only organizers can message the teams.", code="not_organizer")
    if not subject.strip() or not body.strip():
        raise ValidationError("A message needs a subject and a text.", code="empty_message")
    with transaction.atomic():
        people = len(notify_teams_message(competition=competition, subject=subject.strip(), text=body.strip()))
        audit_record(competition=competition, actor=actor, action=AuditEvent.Action.TEAMS_MESSAGED,
                     summary=f"Message to the teams ({people} people): {subject.strip()}",
                     details={"subject": subject.strip(), "people": people,
                              "teams": Team.objects.filter(competition=competition).count()})
    return people
