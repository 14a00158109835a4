"""A real Celery worker process scores a submission sent through a real Redis (or RabbitMQ) broker.

Run with PostgreSQL and Redis (the worker must see the test database):
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/cupboard_x CELERY_BROKER_URL=redis://127.0.0.1:6379/14 \
        .venv/bin/python -m pytest tests/submissions/test_worker.py
"""
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlparse

import pytest
from django.conf import settings
from django.db import connection

from cupboard.submissions.models import Submission
from cupboard.submissions.services import submission_create
from cupboard.submissions.tasks import score_submission

from tests.conftest import port_open

from .conftest import good_sw, upload

pytestmark = [pytest.mark.postgres, pytest.mark.redis, pytest.mark.worker, pytest.mark.django_db(transaction=True)]


def start_worker(log) -> subprocess.Popen:
    """`celery -A cupboard worker` on the test database, the same broker and the same private storage."""
    url = urlparse(os.environ["DATABASE_URL"])._replace(path="/" + connection.settings_dict["NAME"]).geturl()
    env = {**os.environ, "DATABASE_URL": url, "CELERY_BROKER_URL": settings.CELERY_BROKER_URL}
    celery = Path(sys.executable).with_name("celery")
    return subprocess.Popen([str(celery), "-A", "cupboard", "worker", "--pool=solo", "--without-mingle",
                             "--without-gossip", "-l", "info", "-n", f"test-{os.getpid()}@%h"],
                            env=env, stdout=log, stderr=subprocess.STDOUT)


def wait_for(submission: Submission, status: str, *, seconds: float = 60) -> Submission:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        submission.refresh_from_db()
        if submission.status == status:
            return submission
        time.sleep(0.2)
    raise AssertionError(f"still {submission.status} after {seconds}s")


@pytest.fixture
def worker(tmp_path):
    if not settings.CELERY_BROKER_URL.startswith(("redis", "amqp")):
        pytest.skip("needs CELERY_BROKER_URL=redis://... or amqp://... (make test-postgres sets both in turn)")
    if settings.CELERY_BROKER_URL.startswith("amqp") and not port_open(5672):
        pytest.skip("no RabbitMQ on 127.0.0.1:5672")
    with open(tmp_path / "worker.log", "wb") as log:
        process = start_worker(log)
        yield process
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()


def test_it_scores_through_a_real_worker_and_a_second_message_is_harmless(world, worker):
    submission = submission_create(phase=world.dev, team=world.team_a, user=world.participant, method_name="BM25",
                                   files=[(upload("run.sw.txt", good_sw()), None)])
    wait_for(submission, Submission.Status.SCORED)
    assert submission.attempts == 1 and submission.scores.count() == 6
    score_submission.delay(submission.pk)  # a duplicate message, as after a redelivery
    time.sleep(2)
    submission.refresh_from_db()
    assert submission.attempts == 1 and submission.status == Submission.Status.SCORED
    assert worker.poll() is None
