from django.urls import path

from . import views, views_manage

app_name = "teams"
urlpatterns = [
    path("join/<str:invite_code>/", views.join, name="join"),
    path("join/<str:invite_code>/merge/", views.merge, name="merge"),
    path("<slug:competition_slug>/new/", views.create, name="create"),
    path("<slug:competition_slug>/<slug:team_slug>/", views.detail, name="detail"),
    path("<slug:competition_slug>/<slug:team_slug>/leave/", views.leave, name="leave"),
    path("<slug:competition_slug>/<slug:team_slug>/invite/", views.invite_replace, name="invite_replace"),
    path("<slug:competition_slug>/<slug:team_slug>/members/<str:username>/remove/", views.member_remove,
         name="member_remove"),
]

# The organizers' pages of a competition's teams, among its pages ("competitions:...": cupboard/urls.py).
competition_urlpatterns = [
    path("c/<slug:slug>/manage/teams/", views_manage.manage_teams, name="manage_teams"),
    path("c/<slug:slug>/manage/teams/message/", views_manage.message_teams, name="manage_message"),
]
