from django.urls import path

from . import views

app_name = "operations"
urlpatterns = [
    path("metrics", views.metrics, name="metrics"),
    path("c/<slug:slug>/manage/operations/", views.desk, name="desk"),
]
