"""Mail tests: the submissions world, the mail kept in memory, and `send_recorded`."""
import pytest

from tests.notifications.sending import send_recorded  # noqa: F401 - for the tests here
from tests.submissions.conftest import _worlds, good_sw, upload, world  # noqa: F401 - fixtures and helpers


@pytest.fixture(autouse=True)
def locmem_mail(settings):
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
