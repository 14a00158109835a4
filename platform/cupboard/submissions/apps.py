from django.apps import AppConfig


class SubmissionsConfig(AppConfig):
    name = "cupboard.submissions"
    label = "submissions"
