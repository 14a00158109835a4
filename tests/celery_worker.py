"""A real Celery worker process for tests: started on the test database and broker, stopped
whatever happened. Used by tests/submissions/test_worker.py and tests/jobs/."""
import fcntl
import hashlib
import os
import signal
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlparse

import pytest
from django.conf import settings
from django.db import connection

from tests.conftest import port_open


def start_worker(log, *options: str, **env: str) -> subprocess.Popen:
    """`celery -A cupboard worker` on the test database, the same broker and the same private storage,
    in a session of its own (so the whole worker can be killed). Options replace `--pool=solo`;
    it takes the default queue and the systems queue. On Redis it waits for messages 0.1 s at a
    time, not 1 s, so that stopping it (which waits out the last wait) is quick."""
    url = urlparse(os.environ["DATABASE_URL"])._replace(path="/" + connection.settings_dict["NAME"]).geturl()
    env = {**os.environ, "DATABASE_URL": url, "CELERY_BROKER_URL": settings.CELERY_BROKER_URL,
           "CUPBOARD_BROKER_POLL_MS": "100", **env}
    celery = Path(sys.executable).with_name("celery")
    # Both queues: the ordinary one and the runner hosts' (cupboard/systems/), this host having bwrap.
    queues = ["-Q", f"celery,{settings.CUPBOARD_SYSTEMS_QUEUE}"]
    return subprocess.Popen([str(celery), "-A", "cupboard", "worker", *(options or ["--pool=solo"]), *queues,
                             "--without-mingle", "--without-gossip", "-l", "info",
                             "-n", f"test-{os.getpid()}-{time.monotonic_ns()}@%h"],
                            env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)


def skip_without_a_real_broker() -> None:
    """Skip the test unless the session's broker (CELERY_BROKER_URL) is Redis or a running RabbitMQ."""
    if not settings.CELERY_BROKER_URL.startswith(("redis", "amqp")):
        pytest.skip("needs CELERY_BROKER_URL=redis://... or amqp://... (make test-postgres sets Redis)")
    if settings.CELERY_BROKER_URL.startswith("amqp") and not port_open(5672):
        pytest.skip("no RabbitMQ on 127.0.0.1:5672")


@pytest.fixture
def broker():
    skip_without_a_real_broker()


@contextmanager
def rabbitmq_alone(url: str):
    """Hold RabbitMQ's vhost `url` for one test at a time, across the pass's xdist workers and
    other sessions on the machine: its queues are shared (unlike Redis's, one database per
    xdist worker), and two tests' workers would take each other's messages."""
    if not port_open(5672):
        pytest.skip("no RabbitMQ on 127.0.0.1:5672")
    name = hashlib.sha256(url.encode()).hexdigest()[:12]
    with open(Path(tempfile.gettempdir()) / f"cupboard-rabbitmq-{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield url


@pytest.fixture(params=["redis", "rabbitmq"])
def each_broker(request, monkeypatch, settings):
    """The session's broker (CELERY_BROKER_URL: Redis in `make test-postgres`), then the machine's
    RabbitMQ (AMQP_URL, which `make test-postgres` sets): a test using it runs on both production
    brokers within the one pass, beside its other tests. Skipped where either is absent."""
    if request.param == "redis":
        skip_without_a_real_broker()
        yield settings.CELERY_BROKER_URL
        return
    url = os.getenv("AMQP_URL", "")
    if not url.startswith("amqp"):
        pytest.skip("needs AMQP_URL=amqp://... (make test-postgres sets it)")
    from cupboard.celery import app

    with rabbitmq_alone(url):
        settings.CELERY_BROKER_URL = url  # the worker's (start_worker)
        monkeypatch.setenv("CELERY_BROKER_URL", url)  # this process's: Celery reads it before its settings
        monkeypatch.setitem(app.conf, "broker_transport_options", {})  # Redis's options are not RabbitMQ's
        monkeypatch.setattr(app, "_pool", None)  # connections made for the other broker
        monkeypatch.setattr(app.amqp, "_producer_pool", None)
        yield url
        if app._pool is not None:
            app._pool.force_close_all()


def stop(process: subprocess.Popen) -> None:
    if process.poll() is not None:
        return
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=10)
