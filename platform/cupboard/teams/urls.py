from django.urls import path

from . import views

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
