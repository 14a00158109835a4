from django.urls import path

from evaluator.client import api as contract

from . import views, views_history, views_results

# Under the competition's root, c/<slug>/, as all its pages are; the old leaderboards/<slug>/...
# addresses answer a permanent redirect here (cupboard/urls.py).
app_name = "leaderboards"
urlpatterns = [
    path("c/<slug:slug>/leaderboards/", views.competition, name="competition"),
    path("c/<slug:slug>/<slug:phase_slug>/leaderboard/", views.phase, name="phase"),
    path("c/<slug:slug>/<slug:phase_slug>/leaderboard.csv", views.export_csv, name="export_csv"),
    # The JSON a client reads: the contract's routes (evaluator/client/api.py).
    path(contract.LEADERBOARD_ROUTE, views.export_json, name="export_json"),
    path("c/<slug:slug>/<slug:phase_slug>/leaderboard/history/", views_history.history, name="history"),
    path(contract.HISTORY_ROUTE, views_history.history_json, name="history_json"),
    path("c/<slug:slug>/<slug:phase_slug>/official.csv", views_history.official_csv, name="official_csv"),
    path(contract.OFFICIAL_ROUTE, views_history.official_json, name="official_json"),
    path("c/<slug:slug>/<slug:phase_slug>/results/", views_results.results, name="results"),
    path("c/<slug:slug>/<slug:phase_slug>/results/archive/", views_results.archive_build, name="archive_build"),
    # Before the tables' route, which would read archive-1.zip as a table named archive-1.
    path("c/<slug:slug>/<slug:phase_slug>/results/archive-<int:number>.zip", views_results.archive_download,
         name="archive_download"),
    path("c/<slug:slug>/<slug:phase_slug>/results/<slug:table>.<slug:fmt>", views_results.table_download,
         name="paper_table"),
]

# Where these pages were before they moved under c/<slug>/: name -> old route.
moved = {
    "competition": "leaderboards/<slug:slug>/",
    "phase": "leaderboards/<slug:slug>/<slug:phase_slug>/",
    "export_csv": "leaderboards/<slug:slug>/<slug:phase_slug>.csv",
    "export_json": "leaderboards/<slug:competition_slug>/<slug:phase_slug>.json",
    "history": "leaderboards/<slug:slug>/<slug:phase_slug>/history/",
    "official_csv": "leaderboards/<slug:slug>/<slug:phase_slug>/official.csv",
    "official_json": "leaderboards/<slug:competition_slug>/<slug:phase_slug>/official.json",
}
