from django.apps import AppConfig


class CompetitionsConfig(AppConfig):
    name = "cupboard.competitions"
    label = "competitions"
