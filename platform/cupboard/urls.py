"""Top-level URLs: each app owns its own urls.py."""
from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    path("accounts/", include("cupboard.accounts.urls")),
    path("teams/", include("cupboard.teams.urls")),
    path("submissions/", include("cupboard.submissions.urls")),
    path("leaderboards/", include("cupboard.leaderboards.urls")),
    path("audit/", include("cupboard.audit.urls")),
    path("notifications/", include("cupboard.notifications.urls")),
    path("", include("cupboard.judging.urls")),
    path("", include("cupboard.competitions.urls")),
]
