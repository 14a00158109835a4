"""An append-only log of what organizers did (qrels uploads, reveals, grants, re-scoring...) and of
team changes (who created, joined or left which team)."""
from django.conf import settings
from django.db import models

from cupboard.bulk_writes import TellingQuerySet


class AuditEvent(models.Model):
    class Action(models.TextChoices):
        QRELS_UPLOADED = "qrels_uploaded"
        QRELS_COMMITTED = "qrels_committed"
        QRELS_REVEALED = "qrels_revealed"
        TOPICS_UPLOADED = "topics_uploaded"
        DOCUMENTS_UPLOADED = "documents_uploaded"
        VISIBILITY_CHANGED = "visibility_changed"
        LIMIT_GRANTED = "limit_granted"
        RESCORED = "rescored"
        DISQUALIFIED = "disqualified"
        BASELINE_ADDED = "baseline_added"
        COMPETITION_LOADED = "competition_loaded"
        DEFINITION_CHANGED = "definition_changed"
        PHASE_CHANGED = "phase_changed"
        TEAM_CREATED = "team_created"
        TEAM_JOINED = "team_joined"
        TEAM_LEFT = "team_left"
        TEAM_MEMBER_REMOVED = "team_member_removed"
        TEAM_INVITE_REPLACED = "team_invite_replaced"
        TEAM_MERGED = "team_merged"
        TEAMS_MESSAGED = "teams_messaged"
        VERIFIED = "verified"
        RESULTS_FROZEN = "results_frozen"
        RESULTS_ARCHIVED = "results_archived"
        ASSESSOR_ADDED = "assessor_added"
        ASSESSOR_REMOVED = "assessor_removed"
        JUDGING_REASSIGNED = "judging_reassigned"

    # Team changes, listed on the organizers' teams page.
    TEAM_ACTIONS = (Action.TEAM_CREATED, Action.TEAM_JOINED, Action.TEAM_LEFT, Action.TEAM_MEMBER_REMOVED,
                    Action.TEAM_INVITE_REPLACED, Action.TEAM_MERGED)

    competition = models.ForeignKey("competitions.Competition", on_delete=models.CASCADE, related_name="audit_events")
    actor = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    action = models.CharField(max_length=30, choices=Action.choices)
    is_public = models.BooleanField(default=False, help_text="Shown to everyone (e.g. a qrels commitment)")
    summary = models.CharField(max_length=300)
    details = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    objects = TellingQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-pk"]
        indexes = [
            # the audit page: a competition's events, newest first.
            models.Index(fields=["competition", "-created_at"], name="audit_competition_time"),
        ]

    def __str__(self):
        return f"{self.created_at:%Y-%m-%d %H:%M} {self.action}: {self.summary}"
