"""Submissions in the admin: read-only (they change through uploads, scoring and the
organizer's actions, each audited), and quota grants, which are added through the same
service as the button on a submission's page (`quota_grant`: checked and audited)."""
from django import forms
from django.contrib import admin

from cupboard.readonly_admin import ReadOnlyAdmin
from cupboard.submissions.models import QuotaGrant, RunFile, Submission
from cupboard.submissions.quota import quota_grant


class RunFileInline(ReadOnlyAdmin, admin.TabularInline):
    model = RunFile
    extra = 0
    exclude = ("file",)


@admin.register(Submission)
class SubmissionAdmin(ReadOnlyAdmin, admin.ModelAdmin):
    list_display = ("pk", "phase", "team", "number", "method_name", "is_baseline", "status", "selected_for_final",
                    "disqualified", "created_at")
    list_filter = ("phase__competition", "status", "is_baseline", "disqualified")
    search_fields = ("method_name", "team__name")
    inlines = [RunFileInline]


class QuotaGrantForm(forms.ModelForm):
    class Meta:
        model = QuotaGrant
        fields = ("team", "phase", "extra", "day", "reason")

    def clean(self):
        cleaned = super().clean()
        team, phase = cleaned.get("team"), cleaned.get("phase")
        if cleaned.get("extra") == 0:
            self.add_error("extra", forms.ValidationError("Grant at least one submission.", code="bad_grant"))
        if team and phase and team.competition_id != phase.competition_id:
            raise forms.ValidationError("%(team)s is not in the competition of %(phase)s.", code="wrong_competition",
                                        params={"team": team, "phase": phase})
        return cleaned


@admin.register(QuotaGrant)
class QuotaGrantAdmin(admin.ModelAdmin):
    """Added through `quota_grant`; never changed or deleted, so the audit log stays true."""

    form = QuotaGrantForm
    list_display = ("created_at", "phase", "team", "extra", "day", "reason", "granted_by")
    list_filter = ("phase__competition",)

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    def save_model(self, request, obj, form, change):
        grant = quota_grant(actor=request.user, **{name: form.cleaned_data[name] for name in QuotaGrantForm.Meta.fields})
        obj.pk, obj.granted_by, obj.created_at = grant.pk, grant.granted_by, grant.created_at
