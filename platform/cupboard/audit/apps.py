from django.apps import AppConfig


class AuditConfig(AppConfig):
    name = "cupboard.audit"
    label = "audit"
