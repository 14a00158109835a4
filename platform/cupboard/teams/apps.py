from django.apps import AppConfig


class TeamsConfig(AppConfig):
    name = "cupboard.teams"
    label = "teams"
