from django.apps import AppConfig
from django.db.models.signals import post_delete, post_save


class LeaderboardsConfig(AppConfig):
    name = "cupboard.leaderboards"
    label = "leaderboards"

    def ready(self) -> None:
        """A saved or deleted phase, competition or group changes what leaderboards show:
        this process's kept board states go (leaderboards/cache.py, forget_recent_states). A team
        saved, perhaps renamed, is a new version of its competition's boards (services.py; renamed
        in bulk: cupboard.flows)."""
        from cupboard.competitions.models import Competition, Phase, SubsetGroup
        from cupboard.leaderboards.cache import forget_recent_states
        from cupboard.leaderboards.services import team_saved
        from cupboard.teams.models import Team

        for model in (Phase, Competition, SubsetGroup):
            for signal in (post_save, post_delete):
                signal.connect(forget_recent_states, sender=model, dispatch_uid=f"forget-states-{model.__name__}")
        post_save.connect(team_saved, sender=Team, dispatch_uid="boards-team-saved")
