"""The audit log is append-only: readable in the admin, never edited there."""
from django.contrib import admin

from cupboard.audit.models import AuditEvent


@admin.register(AuditEvent)
class AuditEventAdmin(admin.ModelAdmin):
    list_display = ("created_at", "competition", "action", "is_public", "actor", "summary")
    list_filter = ("competition", "action", "is_public")
    search_fields = ("summary",)

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
