"""Top-level URLs: each app owns its own urls.py.

A competition's pages (c/<slug>/..., the "competitions" namespace) come from several apps: its
own, and those submissions and notifications serve about it (its guide, its teams page, the
message to its teams). They are joined here, on the top floor, so competitions never imports
the apps above it (docs/architecture.md).
"""
from django.contrib import admin
from django.urls import include, path

from cupboard.competitions import urls as competitions_urls
from cupboard.notifications import urls as notifications_urls
from cupboard.submissions import urls as submissions_urls

competition_pages = (competitions_urls.urlpatterns + submissions_urls.competition_urlpatterns
                     + notifications_urls.competition_urlpatterns)

urlpatterns = [
    path("admin/", admin.site.urls),
    path("accounts/", include("cupboard.accounts.urls")),
    path("teams/", include("cupboard.teams.urls")),
    path("submissions/", include("cupboard.submissions.urls")),
    path("leaderboards/", include("cupboard.leaderboards.urls")),
    path("audit/", include((competitions_urls.audit_urlpatterns, "audit"))),
    path("notifications/", include("cupboard.notifications.urls")),
    path("", include("cupboard.judging.urls")),
    path("", include((competition_pages, "competitions"))),
]
