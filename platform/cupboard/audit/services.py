"""Writing the audit log. Every organizer action that changes what participants see or
how they are scored goes through `audit_record`."""
from cupboard.audit.models import AuditEvent


def audit_record(*, competition, actor, action: str, summary: str, details: dict | None = None,
                 is_public: bool = False) -> AuditEvent:
    """Append one event. Public events (commitments, reveals) are readable by anyone."""
    return AuditEvent.objects.create(competition=competition, actor=actor, action=action,
                                     summary=summary[:300], details=details or {}, is_public=is_public)
