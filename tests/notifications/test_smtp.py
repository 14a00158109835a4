"""Mail through a real SMTP server (aiosmtpd, in this process, on a free port) with Django's
SMTP backend: what arrives, and what happens while the server is down (the submission keeps
its state; the mails wait, are retried by the sweeper, and arrive once)."""
import socket
from datetime import timedelta
from email import message_from_bytes

import pytest
from aiosmtpd.controller import Controller
from django.utils import timezone

from cupboard.notifications.models import Notification
from cupboard.notifications.services import MAIL_RETRY_AFTER, notifications_sweep
from cupboard.submissions.models import Submission
from cupboard.submissions.scoring import submission_score
from cupboard.submissions.services import submission_create

from .conftest import good_sw, send_recorded, upload


class Inbox:
    """aiosmtpd handler: keeps every message it is given."""

    def __init__(self):
        self.messages = []

    async def handle_DATA(self, server, session, envelope):
        self.messages.append((envelope.rcpt_tos, message_from_bytes(envelope.content)))
        return "250 OK"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def smtp(settings):
    port = free_port()
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT, settings.EMAIL_TIMEOUT = "127.0.0.1", port, 5
    inbox = Inbox()
    controller = Controller(inbox, hostname="127.0.0.1", port=port)
    yield controller, inbox
    controller.stop()


def scored(world) -> Submission:
    submission = submission_create(phase=world.dev, team=world.team_a, user=world.participant, method_name="BM25",
                                   files=[(upload("run.sw.txt", good_sw()), None)])
    assert submission_score(submission_id=submission.pk) == "scored"
    return submission


def test_the_smtp_server_receives_one_message_per_member(world, smtp):
    controller, inbox = smtp
    controller.start()
    scored(world)
    assert send_recorded() == {"sent": 2, "skipped": 0, "failed": 0}
    assert sorted(to for to, _ in inbox.messages) == [["participant@example.org"], ["teammate@example.org"]]
    to, message = inbox.messages[0]
    assert message["Subject"] == f"[{world.competition.title}] Development: submission #1 (BM25) is scored"
    assert message["From"] == "cupboard@localhost" and message["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    assert "nDCG@10" in message.get_payload(decode=True).decode()


def test_a_server_down_keeps_the_submission_and_the_mails_arrive_later(world, smtp, django_capture_on_commit_callbacks):
    controller, inbox = smtp
    submission = scored(world)
    assert send_recorded() == {"sent": 0, "skipped": 0, "failed": 2}  # nothing listens on the port
    submission.refresh_from_db()
    assert submission.status == Submission.Status.SCORED
    waiting = Notification.objects.filter(sent_at__isnull=True)
    assert waiting.count() == 2 and all("ConnectionRefusedError" in n.last_error for n in waiting)
    controller.start()
    later = timezone.now() + MAIL_RETRY_AFTER + timedelta(seconds=1)
    with django_capture_on_commit_callbacks(execute=False) as batches:
        assert notifications_sweep()["resent"] == 0  # too soon to try again
        assert notifications_sweep(now=later)["resent"] == 2
    assert len(batches) == 1  # one batch message for the worker, which sends them:
    assert send_recorded() == {"sent": 2, "skipped": 0, "failed": 0}
    assert notifications_sweep(now=later + MAIL_RETRY_AFTER * 2)["resent"] == 0 and len(inbox.messages) == 2
