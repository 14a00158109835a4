"""Reads of the audit log: who may see which events."""
from django.db.models import QuerySet

from cupboard.audit.models import AuditEvent


def audit_events_for(competition, *, user) -> QuerySet[AuditEvent]:
    """All events for the competition's organizers; only public ones for anyone else."""
    events = AuditEvent.objects.filter(competition=competition).select_related("actor")
    if competition.is_organizer(user):
        return events
    return events.filter(is_public=True)
