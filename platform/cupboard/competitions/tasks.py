"""Periodic work of the competitions app, run by beat (settings.CELERY_BEAT_SCHEDULE)."""
from celery import shared_task


@shared_task(ignore_result=True)
def prune_page_changes() -> int:
    """Run by beat hourly: the page changes no key reads any more (competitions/page_cache.py)."""
    from .page_cache import page_changes_prune

    return page_changes_prune()
