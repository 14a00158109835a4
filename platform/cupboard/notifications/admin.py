"""Mails owed and sent, readable in the admin (what went to whom, what waits and why); they
change only through notifications/services.py."""
from django.contrib import admin

from cupboard.readonly_admin import ReadOnlyAdmin

from .models import Notification


@admin.register(Notification)
class NotificationAdmin(ReadOnlyAdmin, admin.ModelAdmin):
    list_display = ("created_at", "user", "kind", "event", "competition", "sent_at", "skipped", "attempts", "last_error")
    list_filter = ("kind", "event", "competition")
    search_fields = ("key", "user__username")
    list_select_related = ("user", "competition")
