from django.apps import AppConfig


class JudgingConfig(AppConfig):
    name = "cupboard.judging"
    label = "judging"
    verbose_name = "The judging cycle"
