from django.apps import AppConfig
from django.db.models.signals import post_delete, post_save


class TeamsConfig(AppConfig):
    name = "cupboard.teams"
    label = "teams"

    def ready(self) -> None:
        """A membership saved or deleted changes its user's team: what is remembered for them
        goes (accounts/signed_in.py)."""
        from cupboard.accounts.signed_in import membership_changed
        from cupboard.teams.models import Membership

        for signal in (post_save, post_delete):
            signal.connect(membership_changed, sender=Membership, dispatch_uid=f"signed-in-member-{signal is post_save}")
