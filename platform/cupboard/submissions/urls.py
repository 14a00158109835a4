from django.urls import path

from evaluator.client import api as contract

from . import api, api_lists, views, views_guide, views_manage, views_per_topic

# A submission is at submissions/<pk>/ (its address names no competition); a competition's
# submission pages are under the competition's root, c/<slug>/ (the old submissions/<slug>/...
# addresses answer a permanent redirect: cupboard/urls.py).
app_name = "submissions"
urlpatterns = [
    path("submissions/<int:pk>/", views.detail, name="detail"),
    path("submissions/<int:pk>/status/", views.status, name="status"),
    path("submissions/<int:pk>/compare/", views.compare, name="compare"),
    path("submissions/<int:pk>/per-topic/", views_per_topic.per_topic, name="per_topic"),
    path("submissions/<int:pk>/per-topic.csv", views_per_topic.per_topic_csv, name="per_topic_csv"),
    path("submissions/<int:pk>/files/<str:subset_code>/", views.download, name="download"),
    path("submissions/<int:pk>/final/", views.select_final, name="select_final"),
    path("submissions/<int:pk>/release/", views.release_consent, name="release_consent"),
    path("submissions/<int:pk>/disqualify/", views.disqualify, name="disqualify"),
    path("submissions/<int:pk>/grant/", views.grant, name="grant"),
    # The JSON API's routes are the contract's, which the CLI calls (evaluator/client/api.py).
    path(contract.MOUNT + contract.STATUS_ROUTE, api.status, name="api_status"),
    path(contract.MOUNT + contract.UPLOAD_ROUTE, api.upload, name="api_upload"),
    path(contract.MOUNT + contract.DEFINITION_ROUTE, api.definition, name="api_definition"),
    path(contract.MOUNT + contract.SUBMISSIONS_ROUTE, api_lists.submissions, name="api_submissions"),
    path(contract.MOUNT + contract.COMPETITIONS_ROUTE, api_lists.competitions, name="api_competitions"),
    path("c/<slug:competition_slug>/mine/", views.mine, name="mine"),
    path("c/<slug:competition_slug>/<slug:phase_slug>/upload/", views.upload, name="upload"),
    path("c/<slug:competition_slug>/<slug:phase_slug>/rescore/", views.rescore, name="rescore"),
    path("c/<slug:competition_slug>/<slug:phase_slug>/hybrid/", views.hybrid, name="hybrid"),
]

# Where these pages were before they moved under c/<slug>/: name -> old route.
moved = {
    "mine": "submissions/<slug:competition_slug>/mine/",
    "upload": "submissions/<slug:competition_slug>/<slug:phase_slug>/upload/",
    "rescore": "submissions/<slug:competition_slug>/<slug:phase_slug>/rescore/",
    "hybrid": "submissions/<slug:competition_slug>/<slug:phase_slug>/hybrid/",
}

# A competition's pages about submitting, among its pages ("competitions:...": cupboard/urls.py).
competition_urlpatterns = [
    path("c/<slug:slug>/how-to-submit/", views_guide.how_to_submit, name="how_to_submit"),
    path("c/<slug:slug>/manage/teams/", views_manage.manage_teams, name="manage_teams"),
    path("c/<slug:slug>/manage/teams/<slug:team_slug>/grant/", views_manage.team_grant, name="manage_grant"),
    path("c/<slug:slug>/manage/<slug:phase_slug>/submissions.csv", views_manage.phase_export, name="manage_export"),
    path("c/<slug:slug>/manage/<slug:phase_slug>/per-topic.csv", views_per_topic.phase_per_topic, name="manage_per_topic"),
    path("c/<slug:slug>/manage/<slug:phase_slug>/runs.zip", views_manage.phase_runs, name="manage_runs"),
    path("c/<slug:slug>/manage/<slug:phase_slug>/scoring/", views_manage.phase_scoring, name="manage_scoring"),
    path("c/<slug:slug>/manage/<slug:phase_slug>/verify/", views_manage.phase_verify, name="manage_verify"),
]
