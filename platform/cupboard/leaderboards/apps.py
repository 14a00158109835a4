from django.apps import AppConfig
from django.db.models.signals import post_delete, post_save


class LeaderboardsConfig(AppConfig):
    name = "cupboard.leaderboards"
    label = "leaderboards"

    def ready(self) -> None:
        """A saved or deleted phase, competition or group changes what leaderboards show:
        this process's kept board states go (leaderboards/cache.py, forget_recent_states)."""
        from cupboard.competitions.models import Competition, Phase, SubsetGroup
        from cupboard.leaderboards.cache import forget_recent_states

        for model in (Phase, Competition, SubsetGroup):
            for signal in (post_save, post_delete):
                signal.connect(forget_recent_states, sender=model, dispatch_uid=f"forget-states-{model.__name__}")
