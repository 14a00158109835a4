from django.urls import path

from . import views, views_history

app_name = "leaderboards"
urlpatterns = [
    path("<slug:slug>/", views.competition, name="competition"),
    path("<slug:slug>/<slug:phase_slug>/", views.phase, name="phase"),
    path("<slug:slug>/<slug:phase_slug>.csv", views.export_csv, name="export_csv"),
    path("<slug:slug>/<slug:phase_slug>.json", views.export_json, name="export_json"),
    path("<slug:slug>/<slug:phase_slug>/history/", views_history.history, name="history"),
    path("<slug:slug>/<slug:phase_slug>/official.csv", views_history.official_csv, name="official_csv"),
    path("<slug:slug>/<slug:phase_slug>/official.json", views_history.official_json, name="official_json"),
]
