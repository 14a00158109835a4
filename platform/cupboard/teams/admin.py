"""Teams in the admin, read-only: joins, leaves and removals go through teams.services,
which enforce the limits and audit each change."""
from django.contrib import admin

from cupboard.readonly_admin import ReadOnlyAdmin
from cupboard.teams.models import Membership, Team


class MembershipInline(ReadOnlyAdmin, admin.TabularInline):
    model = Membership
    extra = 0
    fields = ("user", "joined_at")
    readonly_fields = ("joined_at",)


@admin.register(Team)
class TeamAdmin(ReadOnlyAdmin, admin.ModelAdmin):
    list_display = ("competition", "name", "slug", "created_by", "created_at")
    list_filter = ("competition",)
    search_fields = ("name", "slug")
    exclude = ("invite_code",)
    inlines = [MembershipInline]
