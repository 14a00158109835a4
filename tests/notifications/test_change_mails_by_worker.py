"""A deadline moved by a new version of the YAML reaches the teams through a real Celery worker:
the load commits, its flow records one mail per member and nudges the worker, which sends them
(file mail backend) naming the new close. Run with PostgreSQL and Redis (the worker must see
the test database):
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/cupboard_x CELERY_BROKER_URL=redis://127.0.0.1:6379/14 \\
        .venv/bin/python -m pytest tests/notifications/test_change_mails_by_worker.py
"""
from datetime import timedelta
from email import message_from_string

import pytest
from django.utils import timezone

from cupboard.competitions.changes import shown
from cupboard.competitions.services import competition_load
from cupboard.notifications.models import Kind, Notification
from cupboard.submissions.models import Submission
from tests.celery_worker import broker, start_worker, stop  # noqa: F401 - broker is a fixture
from tests.competitions.test_definition_changes import bumped, running_cup
from tests.factories import make_team, make_user
from tests.waiting import wait_until

pytestmark = [pytest.mark.postgres, pytest.mark.redis, pytest.mark.worker, pytest.mark.django_db(transaction=True)]


def test_the_worker_mails_each_member_the_new_deadline(broker, tmp_path):
    now = timezone.now().replace(microsecond=0)
    data = running_cup(now, test_b_closes=now + timedelta(days=2))
    competition = competition_load(data=data)
    team = make_team(competition, name="Team A", members=[make_user("participant"), make_user("teammate")])
    Submission.objects.create(phase=competition.phases.get(slug="test-b"), team=team, number=1, method_name="BM25",
                              status=Submission.Status.SCORED)
    mailbox = tmp_path / "mail"
    with open(tmp_path / "worker.log", "wb") as log:
        worker = start_worker(log, CUPBOARD_EMAIL_BACKEND="django.core.mail.backends.filebased.EmailBackend",
                              CUPBOARD_EMAIL_FILE_PATH=str(mailbox))
    try:
        new_close = now + timedelta(hours=30)
        competition_load(data=bumped(data, closes_at=new_close))  # committed: the flow runs after it
        changes = Notification.objects.filter(kind=Kind.CHANGE)
        wait_until(lambda: changes.exists() and not changes.filter(sent_at__isnull=True).exists(),
                   what=lambda: "the mails sent\n" + (tmp_path / "worker.log").read_text(errors="replace")[-3000:])
    finally:
        stop(worker)
    # The file backend writes one file per connection (a batch), its messages between lines of dashes.
    mails = [message_from_string(text) for path in sorted(mailbox.iterdir())
             for text in path.read_text().split("-" * 79 + "\n") if text.strip()]
    assert sorted(m["To"] for m in mails) == ["participant@example.org", "teammate@example.org"]
    line = f"Test B (final): uploads close {shown(new_close)} (was {shown(now + timedelta(days=2))})"
    assert all(line in m.get_payload() for m in mails) and changes.count() == 2
