from django.apps import AppConfig
from django.db.models.signals import m2m_changed, post_delete, post_save, pre_save


class CompetitionsConfig(AppConfig):
    name = "cupboard.competitions"
    label = "competitions"

    def ready(self) -> None:
        """Every saved or deleted row a competition's page shows is a change of its pages
        (competitions/page_cache.py): the cached anonymous pages are keyed past it."""
        from django.conf import settings

        from cupboard.competitions.page_cache import page_changed, people_changed, person_changed, person_saving

        for signal in (post_save, post_delete):
            signal.connect(page_changed, dispatch_uid=f"page-changed-{signal is post_save}")
            signal.connect(person_changed, sender=settings.AUTH_USER_MODEL,
                           dispatch_uid=f"person-changed-{signal is post_save}")
        pre_save.connect(person_saving, sender=settings.AUTH_USER_MODEL, dispatch_uid="person-saving")
        m2m_changed.connect(people_changed, dispatch_uid="page-people-changed")
