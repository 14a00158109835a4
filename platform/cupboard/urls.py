"""Top-level URLs: each app owns its own urls.py.

Every page of a competition is under one root, c/<slug>/: its own pages and its organizer
area (the "competitions" namespace, joined here from the apps that serve some of them, so
competitions never imports the apps above it: docs/architecture.md), and its leaderboards,
teams, submission pages, judging pages and audit log (each app's namespace). The JSON API
keeps the contract's paths (evaluator/client/api.py), a submission its submissions/<pk>/.
"""
from django.contrib import admin
from django.http import HttpResponsePermanentRedirect
from django.urls import include, path, reverse

from cupboard.competitions import urls as competitions_urls
from cupboard.leaderboards import urls as leaderboards_urls
from cupboard.notifications import urls as notifications_urls
from cupboard.submissions import urls as submissions_urls
from cupboard.teams import urls as teams_urls

competition_pages = (competitions_urls.urlpatterns + submissions_urls.competition_urlpatterns
                     + notifications_urls.competition_urlpatterns)


def _moved(name: str):
    """A permanent redirect from a page's old address to its place under c/<slug>/, query kept."""
    def view(request, **kwargs):
        query = request.META.get("QUERY_STRING", "")
        return HttpResponsePermanentRedirect(reverse(name, kwargs=kwargs) + (f"?{query}" if query else ""))
    return view


# A competition's pages all live under c/<slug>/; these answer the addresses they had before.
# Unnamed: nothing links them (tests/rules/test_permissions_matrix.py walks named URLs).
moved = [path(old, _moved(f"{namespace}:{name}"))
         for namespace, table in (("leaderboards", leaderboards_urls.moved), ("teams", teams_urls.moved),
                                  ("submissions", submissions_urls.moved), ("audit", competitions_urls.audit_moved))
         for name, old in table.items()]

urlpatterns = [
    path("admin/", admin.site.urls),
    path("", include("cupboard.operations.urls")),
    path("accounts/", include("cupboard.accounts.urls")),
    path("notifications/", include("cupboard.notifications.urls")),
    path("", include("cupboard.teams.urls")),
    path("", include("cupboard.submissions.urls")),
    path("", include("cupboard.leaderboards.urls")),
    path("", include((competitions_urls.audit_urlpatterns, "audit"))),
    path("", include("cupboard.judging.urls")),
    path("", include("cupboard.systems.urls")),
    path("", include((competition_pages, "competitions"))),
    *moved,
]
