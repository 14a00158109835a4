from django.urls import path

from . import views

# A competition's teams are under its root, c/<slug>/teams/; invites are not (a link names no
# competition). The old teams/<slug>/... addresses answer a permanent redirect (cupboard/urls.py).
app_name = "teams"
urlpatterns = [
    path("teams/join/<str:invite_code>/", views.join, name="join"),
    path("teams/join/<str:invite_code>/merge/", views.merge, name="merge"),
    path("c/<slug:competition_slug>/teams/new/", views.create, name="create"),
    path("c/<slug:competition_slug>/teams/<slug:team_slug>/", views.detail, name="detail"),
    path("c/<slug:competition_slug>/teams/<slug:team_slug>/leave/", views.leave, name="leave"),
    path("c/<slug:competition_slug>/teams/<slug:team_slug>/invite/", views.invite_replace, name="invite_replace"),
    path("c/<slug:competition_slug>/teams/<slug:team_slug>/members/<str:username>/remove/", views.member_remove,
         name="member_remove"),
]

# Where these pages were before they moved under c/<slug>/: name -> old route.
moved = {
    "create": "teams/<slug:competition_slug>/new/",
    "detail": "teams/<slug:competition_slug>/<slug:team_slug>/",
    "leave": "teams/<slug:competition_slug>/<slug:team_slug>/leave/",
    "invite_replace": "teams/<slug:competition_slug>/<slug:team_slug>/invite/",
    "member_remove": "teams/<slug:competition_slug>/<slug:team_slug>/members/<str:username>/remove/",
}
