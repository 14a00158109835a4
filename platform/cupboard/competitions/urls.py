from django.urls import path, re_path

from cupboard.submissions.views_manage import phase_export, phase_scoring, phase_verify, team_grant
from cupboard.teams.views_manage import manage_teams, message_teams

from . import views, views_manage, views_pages
from .feeds import CompetitionEventsFeed

app_name = "competitions"
urlpatterns = [
    path("", views.competition_list, name="list"),
    path("c/<slug:slug>/", views.competition_detail, name="detail"),
    path("c/<slug:slug>/commitments/", views.commitments, name="commitments"),
    path("c/<slug:slug>/events.atom", CompetitionEventsFeed(), name="feed"),
    path("c/<slug:slug>/how-to-submit/", views_pages.how_to_submit, name="how_to_submit"),
    re_path(r"^c/(?P<slug>[-a-zA-Z0-9_]+)/(?P<page>overview|rules|data|evaluation|faq)/$",
            views_pages.competition_page, name="page"),
    path("c/<slug:slug>/<slug:phase_slug>/topics.zip", views_pages.topics_archive, name="topics_archive"),
    path("c/<slug:slug>/<slug:phase_slug>/sample-submission.zip", views_pages.sample_submission,
         name="sample_submission"),
    path("c/<slug:slug>/manage/", views_manage.manage, name="manage"),
    path("c/<slug:slug>/manage/teams/", manage_teams, name="manage_teams"),
    path("c/<slug:slug>/manage/teams/message/", message_teams, name="manage_message"),
    path("c/<slug:slug>/manage/teams/<slug:team_slug>/grant/", team_grant, name="manage_grant"),
    path("c/<slug:slug>/manage/<slug:phase_slug>/submissions.csv", phase_export, name="manage_export"),
    path("c/<slug:slug>/manage/<slug:phase_slug>/scoring/", phase_scoring, name="manage_scoring"),
    path("c/<slug:slug>/manage/<slug:phase_slug>/verify/", phase_verify, name="manage_verify"),
    path("c/<slug:slug>/manage/groups/<slug:group_name>/reveal/", views_manage.group_reveal, name="manage_group"),
    path("c/<slug:slug>/manage/<slug:phase_slug>/qrels/", views_manage.qrels_upload, name="manage_qrels"),
    path("c/<slug:slug>/manage/<slug:phase_slug>/topics/", views_manage.topics_upload, name="manage_topics"),
    path("c/<slug:slug>/manage/<slug:phase_slug>/schedule/", views_manage.phase_schedule, name="manage_schedule"),
    path("c/<slug:slug>/<slug:phase_slug>/topics/<str:code>/", views.topics_download, name="topics"),
    path("c/<slug:slug>/<slug:phase_slug>/qrels/v<int:number>/<str:code>/", views.qrels_download, name="qrels"),
]
