"""Set-up without code: every competitions model in the admin, a competition with its
groups, subsets and phases inline. Qrels are released through `import_qrels` or
`qrels_release_create` (validation, hashing, re-scoring), so the admin shows them read-only."""
from django.contrib import admin

from cupboard.competitions.models import (Competition, Phase, QrelsFile, QrelsRelease, Subset, SubsetGroup,
                                          TopicSet)


class SubsetGroupInline(admin.TabularInline):
    model = SubsetGroup
    extra = 0


class SubsetInline(admin.TabularInline):
    model = Subset
    extra = 0
    fields = ("code", "name", "kind", "group", "position")


class PhaseInline(admin.StackedInline):
    model = Phase
    extra = 0
    fields = (("slug", "name", "position"), ("opens_at", "closes_at"), ("visibility", "reveal_at"),
              ("hidden_qrels", "per_query_visible", "is_final", "ranking"), ("daily_limit", "total_limit"))


@admin.register(Competition)
class CompetitionAdmin(admin.ModelAdmin):
    list_display = ("slug", "title", "benchmark", "primary_metric", "starts_at", "is_published", "config_version")
    list_filter = ("benchmark", "is_published")
    search_fields = ("slug", "title")
    filter_horizontal = ("organizers",)
    readonly_fields = ("config_version", "config_sha256", "created_at")
    inlines = [SubsetGroupInline, SubsetInline, PhaseInline]


@admin.register(SubsetGroup)
class SubsetGroupAdmin(admin.ModelAdmin):
    list_display = ("competition", "name", "label", "reveal_at", "position")
    list_filter = ("competition",)


@admin.register(Subset)
class SubsetAdmin(admin.ModelAdmin):
    list_display = ("competition", "code", "name", "kind", "group", "position")
    list_filter = ("competition", "kind")
    search_fields = ("code", "name")


@admin.register(Phase)
class PhaseAdmin(admin.ModelAdmin):
    list_display = ("competition", "slug", "name", "opens_at", "closes_at", "visibility", "reveal_at",
                    "hidden_qrels", "daily_limit", "total_limit", "is_final", "ranking")
    list_filter = ("competition", "visibility", "hidden_qrels")


@admin.register(TopicSet)
class TopicSetAdmin(admin.ModelAdmin):
    list_display = ("phase", "subset", "original_name", "query_count", "sha256", "created_at")
    list_filter = ("phase__competition",)
    readonly_fields = ("phase", "subset", "file", "original_name", "sha256", "query_count")

    def has_add_permission(self, request):
        return False  # `import_topics` / `topics_import` count queries and hash the file


class QrelsFileInline(admin.TabularInline):
    model = QrelsFile
    extra = 0
    can_delete = False
    readonly_fields = ("subset", "original_name", "sha256", "judged_queries", "judgments")
    exclude = ("file",)

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(QrelsRelease)
class QrelsReleaseAdmin(admin.ModelAdmin):
    list_display = ("phase", "number", "note", "created_by", "created_at")
    list_filter = ("phase__competition",)
    readonly_fields = ("phase", "number", "created_by", "created_at")
    inlines = [QrelsFileInline]

    def has_add_permission(self, request):
        return False


@admin.register(QrelsFile)
class QrelsFileAdmin(admin.ModelAdmin):
    list_display = ("release", "subset", "original_name", "sha256", "judged_queries", "judgments")
    list_filter = ("release__phase__competition",)
    readonly_fields = ("release", "subset", "file", "original_name", "sha256", "judged_queries", "judgments")

    def has_add_permission(self, request):
        return False
