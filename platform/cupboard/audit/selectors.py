"""Reads of the audit log: who may see which events."""
from django.db.models import QuerySet

from cupboard.audit.models import AuditEvent


def audit_events_for(viewer) -> QuerySet[AuditEvent]:
    """All events for the competition's organizers; only public ones for anyone else."""
    events = AuditEvent.objects.filter(competition=viewer.competition).select_related("actor")
    return events if viewer.is_organizer else events.filter(is_public=True)
