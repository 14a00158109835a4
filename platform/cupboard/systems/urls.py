from django.urls import path

from . import views

# A system is at systems/<pk>/ (as a submission is at submissions/<pk>/); a phase's system upload
# is under the competition's root.
app_name = "systems"
urlpatterns = [
    path("systems/<int:pk>/", views.detail, name="detail"),
    path("systems/<int:pk>/status/", views.status, name="status"),
    path("systems/<int:pk>/rerun/", views.rerun, name="rerun"),
    path("systems/<int:pk>/determinism/", views.determinism, name="determinism"),
    path("systems/<int:pk>/image.tar", views.image, name="image"),
    path("c/<slug:competition_slug>/<slug:phase_slug>/system/api/", views.api_upload, name="api_upload"),
    path("c/<slug:slug>/<slug:phase_slug>/system/", views.upload, name="upload"),
]
