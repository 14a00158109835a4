"""Sending what was recorded, as the worker would: a test's transaction never commits, so
the on_commit messages that carry each batch to the worker never leave."""
from cupboard.notifications.models import Notification
from cupboard.notifications.services import notifications_send


def send_recorded() -> dict:
    """Send every notification not yet sent or skipped, like the worker's batch task."""
    ids = list(Notification.objects.filter(sent_at__isnull=True, skipped="").values_list("pk", flat=True))
    return notifications_send(notification_ids=ids)
