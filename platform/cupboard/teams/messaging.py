"""Organizers' messages to every team of a competition, by e-mail through Django's mail
framework (`EMAIL_BACKEND`: a file or console backend unless the site configures SMTP).

One message per person, so no member sees another's address; audited with the subject and
the number of people reached, never the addresses.
"""
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.core.mail import send_mass_mail

from cupboard.audit.models import AuditEvent
from cupboard.audit.services import audit_record
from cupboard.competitions.models import Competition

from .models import Team


def teams_message(*, competition: Competition, actor: AbstractBaseUser, subject: str, body: str) -> int:
    """E-mail `subject` and `body` to every member (with an address) of every team of the
    competition; returns how many messages went out. Organizers and staff only."""
    if not competition.is_organizer(actor):
        raise ValidationError("Only organizers can message the teams.", code="not_organizer")
    if not subject.strip() or not body.strip():
        raise ValidationError("A message needs a subject and a text.", code="empty_message")
    teams = Team.objects.filter(competition=competition)
    people = (get_user_model().objects.filter(memberships__team__in=teams).exclude(email="")
              .values_list("email", flat=True).distinct().order_by("email"))
    line = f"[{competition.title}] {subject.strip()}"
    text = f"{body.strip()}\n\n-- \nThe organizers of {competition.title}\n{settings.SITE_URL}{competition.get_absolute_url()}\n"
    sent = send_mass_mail([(line, text, None, [email]) for email in people], fail_silently=False)
    audit_record(competition=competition, actor=actor, action=AuditEvent.Action.TEAMS_MESSAGED,
                 summary=f"Message to the teams ({sent} people): {subject.strip()}",
                 details={"subject": subject.strip(), "people": sent, "teams": teams.count()})
    return sent
