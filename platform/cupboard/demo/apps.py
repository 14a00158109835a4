from django.apps import AppConfig


class DemoConfig(AppConfig):
    name = "cupboard.demo"
    label = "demo"
