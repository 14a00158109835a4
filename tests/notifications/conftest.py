"""Mail tests: the submissions world, and a helper that sends what a scoring recorded as
the worker would (the test's transaction never commits, so on_commit messages never leave)."""
import pytest

from cupboard.notifications.models import Notification
from cupboard.notifications.services import notifications_send
from tests.submissions.conftest import good_sw, upload, world  # noqa: F401 - fixtures and helpers


def send_recorded() -> dict:
    """Send every notification not yet sent or skipped, like the worker's batch task."""
    ids = list(Notification.objects.filter(sent_at__isnull=True, skipped="").values_list("pk", flat=True))
    return notifications_send(notification_ids=ids)


@pytest.fixture(autouse=True)
def locmem_mail(settings):
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
