from django.apps import AppConfig


class OperationsConfig(AppConfig):
    name = "cupboard.operations"
    label = "operations"
    verbose_name = "The operator's view: metrics and the queue"
