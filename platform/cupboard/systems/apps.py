from django.apps import AppConfig


class SystemsConfig(AppConfig):
    name = "cupboard.systems"
    verbose_name = "Systems (blind evaluation)"
