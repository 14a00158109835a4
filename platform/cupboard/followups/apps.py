from django.apps import AppConfig


class FollowUpsConfig(AppConfig):
    name = "cupboard.followups"
    label = "followups"
    verbose_name = "What must follow a committed change"
