from django.apps import AppConfig
from django.db.models.signals import m2m_changed, post_delete, post_save


class AccountsConfig(AppConfig):
    name = "cupboard.accounts"
    label = "accounts"

    def ready(self) -> None:
        """What changes who a session signs in forgets what is remembered for them (accounts/signed_in.py)."""
        from django.conf import settings
        from django.contrib.auth.signals import user_logged_in
        from django.contrib.sessions.models import Session

        from cupboard.accounts.signed_in import logged_in, person_saved, roles_changed, session_deleted

        for signal in (post_save, post_delete):
            signal.connect(person_saved, sender=settings.AUTH_USER_MODEL,
                           dispatch_uid=f"signed-in-person-{signal is post_save}")
        post_delete.connect(session_deleted, sender=Session, dispatch_uid="signed-in-session")
        m2m_changed.connect(roles_changed, dispatch_uid="signed-in-roles")
        user_logged_in.connect(logged_in, dispatch_uid="signed-in-logged-in")
