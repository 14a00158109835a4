from django.urls import path

from . import views, views_openapi

app_name = "operations"
urlpatterns = [
    path("metrics", views.metrics, name="metrics"),
    path("c/<slug:slug>/manage/operations/", views.desk, name="desk"),
    # The whole JSON API described (operations/openapi.py joins the apps' parts).
    path("api/openapi.json", views_openapi.openapi_json, name="api_openapi"),
    path("api/docs/", views_openapi.api_docs, name="api_docs"),
]
