"""Sending a scoring message gives up quickly when the broker cannot answer, so an upload
(already committed) answers instead of hanging: a Redis of the test's own that refuses
connections, then one that is frozen (SIGSTOP: connections open, nothing answers)."""
import os
import shutil
import signal
import subprocess
import sys
import tempfile

import pytest

from tests.e2e.stack import ROOT, free_port, wait_until
from tests.waiting import PATIENCE

pytestmark = pytest.mark.skipif(shutil.which("redis-server") is None, reason="no redis-server")

SEND = """
import time
import django
django.setup()
from cupboard.submissions.scoring_kind import submissions_send
submissions_send(submission_ids=[1])  # connects while the broker answers
print("ready", flush=True)
input()  # the test freezes the broker now
started = time.monotonic()
sent = submissions_send(submission_ids=[2, 3])
print(sent, round(time.monotonic() - started, 1), flush=True)
"""


@pytest.fixture
def redis_port():
    port, folder = free_port(), tempfile.mkdtemp(prefix="cupboard-redis-")
    server = subprocess.Popen(["redis-server", "--port", str(port), "--save", "", "--dir", folder],
                              stdout=subprocess.DEVNULL)
    wait_until(lambda: subprocess.run(["redis-cli", "-p", str(port), "ping"], capture_output=True).returncode == 0,
               what="redis-server")
    yield port, server
    os.kill(server.pid, signal.SIGCONT)
    server.kill()
    server.wait(timeout=10)
    shutil.rmtree(folder, ignore_errors=True)


def test_a_frozen_broker_fails_the_send_within_seconds(redis_port):
    port, server = redis_port
    env = {**os.environ, "CELERY_BROKER_URL": f"redis://127.0.0.1:{port}/0", "DJANGO_SETTINGS_MODULE": "cupboard.settings"}
    sender = subprocess.Popen([sys.executable, "-c", SEND], cwd=ROOT, env=env, stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert sender.stdout.readline().strip() == "ready", sender.stderr.read()
        os.kill(server.pid, signal.SIGSTOP)
        sender.stdin.write("\n")
        sender.stdin.flush()
        out, err = sender.communicate(timeout=PATIENCE)  # it hung for good before sends had a socket timeout
    finally:
        sender.kill()
    sent, seconds = out.split()
    assert sent == "0" and float(seconds) < 15, f"the point: a frozen broker fails the send within 15 s\n{err}"
    assert "the stale sweeper will send it again" in err
