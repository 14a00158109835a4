from django.urls import path

from . import views, views_assess, views_rounds

app_name = "judging"
urlpatterns = [
    path("c/<slug:slug>/<slug:phase_slug>/judged/", views.phase_judged_page, name="phase_judged"),
    path("c/<slug:slug>/manage/<slug:phase_slug>/pool/", views.pool, name="pool"),
    path("c/<slug:slug>/manage/<slug:phase_slug>/pool/exports/", views.pool_create, name="pool_create"),
    path("c/<slug:slug>/manage/<slug:phase_slug>/pool/<int:number>.zip", views.pool_zip, name="pool_zip"),
    path("c/<slug:slug>/manage/<slug:phase_slug>/pool/<int:number>/<str:code>.tsv", views.pool_tsv, name="pool_tsv"),
    path("c/<slug:slug>/manage/<slug:phase_slug>/qrels/v<int:number>/changes/", views.qrels_changes,
         name="qrels_changes"),
    # Judging in the browser: the organizers' side, then the assessors'.
    path("c/<slug:slug>/manage/assessors/", views_rounds.assessors, name="assessors"),
    path("c/<slug:slug>/manage/<slug:phase_slug>/judging/", views_rounds.assessment, name="assessment"),
    path("c/<slug:slug>/manage/<slug:phase_slug>/judging/corpus/", views_rounds.corpus_create, name="corpus_create"),
    path("c/<slug:slug>/manage/<slug:phase_slug>/judging/rounds/", views_rounds.round_create, name="round_create"),
    path("c/<slug:slug>/manage/<slug:phase_slug>/judging/<int:pk>/resolve/", views_rounds.resolve, name="resolve"),
    path("c/<slug:slug>/manage/<slug:phase_slug>/judging/<int:pk>/qrels/", views_rounds.round_qrels,
         name="round_qrels"),
    path("c/<slug:slug>/manage/<slug:phase_slug>/judging/<int:pk>/reassign/", views_rounds.round_reassign,
         name="round_reassign"),
    path("c/<slug:slug>/judge/", views_assess.tasks, name="tasks"),
    path("c/<slug:slug>/judge/<int:pk>/", views_assess.judge, name="judge"),
]
