"""Set-up without code: every competitions model in the admin, a competition with its
groups, subsets and phases inline.

The admin never hides what is public (competitions/schedule.py). Who sees what, and when,
is read-only here once a row exists: a phase's visibility, reveal instant and hidden
judgments, a group's reveal, and instants already passed (a phase's opening, the
competition's start, from which hidden judgments are committed); a revealed subset cannot
move into a group still hidden. They change in the
organizer area, which audits each change and refuses to hide what is public. Qrels are
released through `import_qrels` or `qrels_release_create` and removed only through
`qrels_release_delete`; a phase, subset or competition holding anything public cannot be
deleted (deleting would cascade to its public judgments and leaderboard)."""
from django import forms
from django.contrib import admin, messages
from django.utils import timezone

from cupboard.competitions.digest import competition_digest
from cupboard.competitions.errors import CompetitionError
from cupboard.competitions.models import (
    Competition,
    Phase,
    QrelsFile,
    QrelsRelease,
    Subset,
    SubsetGroup,
    TopicSet,
    TopicsFile,
    TopicsVersion,
)
from cupboard.competitions.roles import participant_organizers
from cupboard.competitions.schedule import (
    PHASE_SCHEDULE_FIELDS,
    leaderboard_is_public,
    qrels_release_delete,
    qrels_release_is_public,
    subset_move_refusal,
)
from cupboard.readonly_admin import ReadOnlyAdmin

SCHEDULE_NOTE = "Change it in the organizer area (audited; what is public cannot be hidden again)."


def _phase_holds_public(phase: Phase, now) -> bool:
    return leaderboard_is_public(phase, now) or any(qrels_release_is_public(r, now) for r in phase.qrels_releases.all())


def _passed(instant, now) -> bool:
    return instant is not None and instant <= now


class _GuardedDelete:
    """Delete one object at a time, and only when it holds nothing public: the bulk action
    would skip `has_delete_permission(obj)`."""

    def get_actions(self, request):
        actions = super().get_actions(request)
        actions.pop("delete_selected", None)
        return actions

    def holds_public(self, obj, now) -> bool:
        raise NotImplementedError

    def has_delete_permission(self, request, obj=None):
        allowed = super().has_delete_permission(request, obj)
        return allowed and (obj is None or not self.holds_public(obj, timezone.now()))


class SubsetGroupInline(admin.TabularInline):
    model = SubsetGroup
    extra = 0
    readonly_fields = ("reveal_at",)  # new groups get theirs on their own add page


class SubsetForm(forms.ModelForm):
    """A revealed subset may not move into a group still hidden (the same rule as the YAML's)."""

    def clean_group(self):
        group = self.cleaned_data["group"]
        if self.instance.pk and group is not None and group != self.instance.group:
            now = timezone.now()
            refusal = subset_move_refusal(self.instance, to_revealed=group.is_revealed(now), now=now)
            if refusal:
                raise forms.ValidationError(refusal.message, code=refusal.code)
        return group


class SubsetInline(admin.TabularInline):
    model = Subset
    form = SubsetForm
    extra = 0
    fields = ("code", "name", "kind", "group", "position")


class PhaseInline(admin.StackedInline):
    model = Phase
    extra = 0
    fields = (("slug", "name", "position"), ("opens_at", "closes_at"), ("visibility", "reveal_at", "before_reveal"),
              ("hidden_qrels", "per_query_visible", "is_final", "ranking"), ("freeze_at", "ladder"),
              ("daily_limit", "total_limit"))
    readonly_fields = PHASE_SCHEDULE_FIELDS  # new phases get theirs on their own add page


class CompetitionForm(forms.ModelForm):
    """A member of one of its teams is not made an organizer here either (the YAML's rule,
    competitions/roles.py)."""

    def clean_organizers(self):
        organizers = list(self.cleaned_data["organizers"])
        problems = participant_organizers(self.instance, organizers)
        if problems:
            raise forms.ValidationError([problem.split(": ", 1)[1] for problem in problems], code="organizer-in-team")
        return self.cleaned_data["organizers"]

    def clean_entry_deadline(self):
        """Not after the deciding phase closes (the YAML's rule, definition.py)."""
        deadline = self.cleaned_data["entry_deadline"]
        phases = list(self.instance.phases.all()) if self.instance.pk else []
        closing = [p for p in phases if p.is_final] or phases
        if deadline is not None and closing:
            last = max(closing, key=lambda p: p.closes_at)
            if deadline.replace(microsecond=0) > last.closes_at.replace(microsecond=0):
                raise forms.ValidationError(f"After phase {last.slug} closes ({last.closes_at:%Y-%m-%d %H:%M} UTC): "
                                            "no team could submit after it.", code="entry-after-close")
        return deadline


@admin.register(Competition)
class CompetitionAdmin(_GuardedDelete, admin.ModelAdmin):
    form = CompetitionForm
    list_display = ("slug", "title", "benchmark", "primary_metric", "starts_at", "is_published", "config_version")
    list_filter = ("benchmark", "is_published")
    search_fields = ("slug", "title")
    filter_horizontal = ("organizers",)
    inlines = [SubsetGroupInline, SubsetInline, PhaseInline]

    def get_readonly_fields(self, request, obj=None):
        # run_metadata: checked as the YAML's (competitions/run_metadata.py); a new version changes it.
        fixed = ("config_version", "definition_digest", "created_at", "run_metadata")
        if obj and _passed(obj.starts_at, timezone.now()):
            # Started: its commitments are out; published and started: anyone may have read it all.
            return fixed + ("starts_at",) + (("is_published",) if obj.is_published else ())
        return fixed

    def holds_public(self, obj, now) -> bool:
        return any(_phase_holds_public(phase, now) for phase in obj.phases.all())

    @admin.display(description="Definition digest")
    def definition_digest(self, obj) -> str:
        """Derived from the rows (competitions/digest.py), so an edit here moves it too."""
        return competition_digest(obj) if obj is not None and obj.pk else ""


@admin.register(SubsetGroup)
class SubsetGroupAdmin(_GuardedDelete, admin.ModelAdmin):
    list_display = ("competition", "name", "label", "reveal_at", "position")
    list_filter = ("competition",)

    def get_readonly_fields(self, request, obj=None):
        return ("reveal_at",) if obj else ()

    def holds_public(self, obj, now) -> bool:
        return obj.is_revealed(now) and obj.subsets.exists()


@admin.register(Subset)
class SubsetAdmin(_GuardedDelete, admin.ModelAdmin):
    form = SubsetForm
    list_display = ("competition", "code", "name", "kind", "group", "position")
    list_filter = ("competition", "kind")
    search_fields = ("code", "name")

    def holds_public(self, obj, now) -> bool:
        return any(qrels_release_is_public(f.release, now)
                   for f in obj.qrels_files.select_related("release__phase__competition"))


@admin.register(Phase)
class PhaseAdmin(_GuardedDelete, admin.ModelAdmin):
    list_display = ("competition", "slug", "name", "opens_at", "closes_at", "visibility", "reveal_at", "before_reveal",
                    "hidden_qrels", "daily_limit", "total_limit", "is_final", "ranking")
    list_filter = ("competition", "visibility", "hidden_qrels")

    def get_readonly_fields(self, request, obj=None):
        if obj is None:
            return ()
        return PHASE_SCHEDULE_FIELDS + (("opens_at",) if _passed(obj.opens_at, timezone.now()) else ())

    def render_change_form(self, request, context, *args, obj=None, **kwargs):
        if obj is not None:
            context["subtitle"] = f"Visibility, reveal and hidden judgments: {SCHEDULE_NOTE}"
        return super().render_change_form(request, context, *args, obj=obj, **kwargs)

    def holds_public(self, obj, now) -> bool:
        return _phase_holds_public(obj, now)


@admin.register(TopicSet)
class TopicSetAdmin(admin.ModelAdmin):
    list_display = ("phase", "subset", "original_name", "query_count", "version", "sha256", "created_at")
    list_filter = ("phase__competition",)
    readonly_fields = ("phase", "subset", "file", "original_name", "sha256", "query_count", "version")

    def has_add_permission(self, request):
        return False  # `import_topics` / `topics_import` count queries and hash the file


class TopicsFileInline(ReadOnlyAdmin, admin.TabularInline):
    model = TopicsFile
    extra = 0
    readonly_fields = ("subset", "variant", "file", "original_name", "sha256", "query_count")


@admin.register(TopicsVersion)
class TopicsVersionAdmin(ReadOnlyAdmin, admin.ModelAdmin):
    """Every topics version of a phase with its files, the replaced ones included: read only,
    as what runs were checked against must not change after the fact."""

    list_display = ("phase", "number", "rescored", "created_by", "created_at")
    list_filter = ("phase__competition",)
    readonly_fields = ("phase", "number", "changes", "rescored", "created_by", "created_at")
    inlines = [TopicsFileInline]


class QrelsFileInline(admin.TabularInline):
    model = QrelsFile
    extra = 0
    can_delete = False
    readonly_fields = ("subset", "original_name", "sha256", "judged_queries", "judgments")
    exclude = ("file",)

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(QrelsRelease)
class QrelsReleaseAdmin(_GuardedDelete, admin.ModelAdmin):
    list_display = ("phase", "number", "note", "created_by", "created_at")
    list_filter = ("phase__competition",)
    readonly_fields = ("phase", "number", "created_by", "created_at")
    inlines = [QrelsFileInline]

    def has_add_permission(self, request):
        return False

    def holds_public(self, obj, now) -> bool:
        return qrels_release_is_public(obj, now)

    def get_deleted_objects(self, objs, request):
        """Its files go with it, though they cannot be deleted on their own."""
        deleted, counts, perms_needed, protected = super().get_deleted_objects(objs, request)
        return deleted, counts, perms_needed - {QrelsFile._meta.verbose_name}, protected

    def delete_model(self, request, obj):
        """Through the service: audited, refused (again, under the phase lock) once public."""
        try:
            qrels_release_delete(release=obj, actor=request.user)
        except CompetitionError as error:
            self.message_user(request, error.message, messages.ERROR)


@admin.register(QrelsFile)
class QrelsFileAdmin(admin.ModelAdmin):
    list_display = ("release", "subset", "original_name", "sha256", "judged_queries", "judgments")
    list_filter = ("release__phase__competition",)
    readonly_fields = ("release", "subset", "file", "original_name", "sha256", "judged_queries", "judgments")

    def has_add_permission(self, request):
        return False

    def has_delete_permission(self, request, obj=None):
        return False  # a release's files go with it (`qrels_release_delete`)
