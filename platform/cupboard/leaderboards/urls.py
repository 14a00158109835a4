from django.urls import path

from . import views

app_name = "leaderboards"
urlpatterns = [
    path("<slug:slug>/", views.competition, name="competition"),
    path("<slug:slug>/<slug:phase_slug>/", views.phase, name="phase"),
    path("<slug:slug>/<slug:phase_slug>.csv", views.export_csv, name="export_csv"),
    path("<slug:slug>/<slug:phase_slug>.json", views.export_json, name="export_json"),
]
