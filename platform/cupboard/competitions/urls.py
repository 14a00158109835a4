from django.urls import path, re_path

from . import views, views_audit, views_definition, views_manage, views_pages
from .feeds import CompetitionEventsFeed
from .page_cache import anonymous_cached

# A competition's pages are under c/<slug>/ and named "competitions:...", whichever app serves
# them: the apps above this one (submissions, notifications) add theirs in their own urls.py
# (`competition_urlpatterns`), and the root urls.py mounts them all in this namespace.
app_name = "competitions"
urlpatterns = [
    path("", views.competition_list, name="list"),
    path("competitions/new/", views_definition.competition_create, name="create"),
    path("competitions/new/yaml/", views_definition.competition_create_yaml, name="create_yaml"),
    path("competitions/markdown-preview/", views_definition.markdown_preview, name="markdown_preview"),
    path("c/<slug:slug>/", views.competition_detail, name="detail"),
    path("c/<slug:slug>/commitments/", views.commitments, name="commitments"),
    path("c/<slug:slug>/events.atom", anonymous_cached()(CompetitionEventsFeed()), name="feed"),
    re_path(r"^c/(?P<slug>[-a-zA-Z0-9_]+)/(?P<page>overview|rules|data|evaluation|faq)/$",
            views_pages.competition_page, name="page"),
    path("c/<slug:slug>/<slug:phase_slug>/topics.zip", views_pages.topics_archive, name="topics_archive"),
    path("c/<slug:slug>/<slug:phase_slug>/sample-submission.zip", views_pages.sample_submission,
         name="sample_submission"),
    path("c/<slug:slug>/manage/", views_manage.manage, name="manage"),
    path("c/<slug:slug>/manage/definition/", views_definition.definition_edit, name="definition"),
    path("c/<slug:slug>/manage/definition/yaml/", views_definition.definition_edit_yaml, name="definition_yaml"),
    path("c/<slug:slug>/manage/definition.yaml", views_definition.definition_download, name="definition_download"),
    path("c/<slug:slug>/manage/groups/<slug:group_name>/reveal/", views_manage.group_reveal, name="manage_group"),
    path("c/<slug:slug>/manage/<slug:phase_slug>/qrels/", views_manage.qrels_upload, name="manage_qrels"),
    path("c/<slug:slug>/manage/<slug:phase_slug>/topics/", views_manage.topics_upload, name="manage_topics"),
    path("c/<slug:slug>/manage/<slug:phase_slug>/topics/change-<int:number>/<str:code>/<slug:variant>/",
         views_manage.topics_change_file, name="manage_topics_file"),
    path("c/<slug:slug>/manage/<slug:phase_slug>/schedule/", views_manage.phase_schedule, name="manage_schedule"),
    path("c/<slug:slug>/manage/<slug:phase_slug>/board-rules/", views_manage.phase_board_rules,
         name="manage_board_rules"),
    path("c/<slug:slug>/<slug:phase_slug>/topics/<str:code>/", views.topics_download, name="topics"),
    path("c/<slug:slug>/<slug:phase_slug>/topics/<str:code>/<slug:variant>/", views.topics_download,
         name="topics_variant"),
    path("c/<slug:slug>/<slug:phase_slug>/qrels/v<int:number>/<str:code>/", views.qrels_download, name="qrels"),
]

# The audit log of a competition, at c/<slug>/audit/ in the "audit" namespace (cupboard/urls.py).
audit_urlpatterns = [
    path("c/<slug:slug>/audit/", views_audit.audit_log, name="log"),
]
audit_moved = {"log": "audit/<slug:slug>/"}  # where it was before it moved under c/<slug>/
