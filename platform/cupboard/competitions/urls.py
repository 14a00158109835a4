from django.urls import path

from . import views

app_name = "competitions"
urlpatterns = [
    path("", views.competition_list, name="list"),
    path("c/<slug:slug>/", views.competition_detail, name="detail"),
    path("c/<slug:slug>/commitments/", views.commitments, name="commitments"),
    path("c/<slug:slug>/<slug:phase_slug>/topics/<str:code>/", views.topics_download, name="topics"),
    path("c/<slug:slug>/<slug:phase_slug>/qrels/v<int:number>/<str:code>/", views.qrels_download, name="qrels"),
]
