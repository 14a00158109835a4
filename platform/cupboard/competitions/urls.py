from django.urls import path

from cupboard.teams.views_manage import manage_teams

from . import views, views_manage

app_name = "competitions"
urlpatterns = [
    path("", views.competition_list, name="list"),
    path("c/<slug:slug>/", views.competition_detail, name="detail"),
    path("c/<slug:slug>/commitments/", views.commitments, name="commitments"),
    path("c/<slug:slug>/manage/", views_manage.manage, name="manage"),
    path("c/<slug:slug>/manage/teams/", manage_teams, name="manage_teams"),
    path("c/<slug:slug>/manage/groups/<slug:group_name>/reveal/", views_manage.group_reveal, name="manage_group"),
    path("c/<slug:slug>/manage/<slug:phase_slug>/qrels/", views_manage.qrels_upload, name="manage_qrels"),
    path("c/<slug:slug>/manage/<slug:phase_slug>/topics/", views_manage.topics_upload, name="manage_topics"),
    path("c/<slug:slug>/manage/<slug:phase_slug>/schedule/", views_manage.phase_schedule, name="manage_schedule"),
    path("c/<slug:slug>/<slug:phase_slug>/topics/<str:code>/", views.topics_download, name="topics"),
    path("c/<slug:slug>/<slug:phase_slug>/qrels/v<int:number>/<str:code>/", views.qrels_download, name="qrels"),
]
