from django.urls import path

from . import views

app_name = "judging"
urlpatterns = [
    path("c/<slug:slug>/<slug:phase_slug>/judged/", views.phase_judged_page, name="phase_judged"),
    path("c/<slug:slug>/manage/<slug:phase_slug>/pool/", views.pool, name="pool"),
    path("c/<slug:slug>/manage/<slug:phase_slug>/pool/exports/", views.pool_create, name="pool_create"),
    path("c/<slug:slug>/manage/<slug:phase_slug>/pool/<int:number>.zip", views.pool_zip, name="pool_zip"),
    path("c/<slug:slug>/manage/<slug:phase_slug>/pool/<int:number>/<str:code>.tsv", views.pool_tsv, name="pool_tsv"),
    path("c/<slug:slug>/manage/<slug:phase_slug>/qrels/v<int:number>/changes/", views.qrels_changes,
         name="qrels_changes"),
]
