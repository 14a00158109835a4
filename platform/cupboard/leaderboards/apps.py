from django.apps import AppConfig


class LeaderboardsConfig(AppConfig):
    name = "cupboard.leaderboards"
    label = "leaderboards"
