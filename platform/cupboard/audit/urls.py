from django.urls import path

from . import views

app_name = "audit"
urlpatterns = [
    path("<slug:slug>/", views.audit_log, name="log"),
]
