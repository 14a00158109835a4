"""A real Celery worker process for tests: started on the test database and broker, stopped
whatever happened. Used by tests/submissions/test_worker.py and tests/jobs/."""
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

from tests.conftest import port_open


def start_worker(log, *options: str, **env: str) -> subprocess.Popen:
    """`celery -A cupboard worker` on the test database, the same broker and the same private storage,
    in a session of its own (so the whole worker can be killed). Options replace `--pool=solo`;
    it takes the default queue and the systems queue."""
    url = urlparse(os.environ["DATABASE_URL"])._replace(path="/" + connection.settings_dict["NAME"]).geturl()
    env = {**os.environ, "DATABASE_URL": url, "CELERY_BROKER_URL": settings.CELERY_BROKER_URL, **env}
    celery = Path(sys.executable).with_name("celery")
    # Both queues: the ordinary one and the runner hosts' (cupboard/systems/), this host having bwrap.
    queues = ["-Q", f"celery,{settings.CUPBOARD_SYSTEMS_QUEUE}"]
    return subprocess.Popen([str(celery), "-A", "cupboard", "worker", *(options or ["--pool=solo"]), *queues,
                             "--without-mingle", "--without-gossip", "-l", "info",
                             "-n", f"test-{os.getpid()}-{time.monotonic_ns()}@%h"],
                            env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)


@pytest.fixture
def broker():
    if not settings.CELERY_BROKER_URL.startswith(("redis", "amqp")):
        pytest.skip("needs CELERY_BROKER_URL=redis://... or amqp://... (make test-postgres sets both in turn)")
    if settings.CELERY_BROKER_URL.startswith("amqp") and not port_open(5672):
        pytest.skip("no RabbitMQ on 127.0.0.1:5672")


def stop(process: subprocess.Popen) -> None:
    if process.poll() is not None:
        return
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=10)
