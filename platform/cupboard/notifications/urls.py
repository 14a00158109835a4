from django.urls import path

from . import views, views_manage

app_name = "notifications"
urlpatterns = [
    path("preferences/", views.preferences, name="preferences"),
    path("unsubscribe/<str:token>/", views.unsubscribe, name="unsubscribe"),
]

# The organizers' message to the teams, among a competition's pages ("competitions:...": cupboard/urls.py).
competition_urlpatterns = [
    path("c/<slug:slug>/manage/teams/message/", views_manage.message_teams, name="manage_message"),
]
