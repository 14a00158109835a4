from django.apps import AppConfig


class NotificationsConfig(AppConfig):
    name = "cupboard.notifications"
    label = "notifications"
