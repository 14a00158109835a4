"""/healthz, /readyz and the worker's heartbeat (cupboard/health.py, cupboard/heartbeat.py).

/readyz is asked of a real process each time, configured as a site would be, with one part
pointed at a port where nothing listens: that part, and only that part, is named as down.
"""
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from django.test import Client

from cupboard import health, heartbeat
from tests.conftest import port_open
from tests.waiting import PATIENCE, wait_until

PROBE = """
import django, json
django.setup()
from django.test import Client
response = Client(SERVER_NAME="10.1.2.3").get("/readyz")  # a probe knows the process by its address
print(json.dumps({"status": response.status_code, "retry": response.get("Retry-After"),
                  "body": json.loads(response.content)}))
"""


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _readyz(tmp_path: Path, **env: str) -> dict:
    """GET /readyz in a fresh process with these settings (debug off, as in production)."""
    base = {key: value for key, value in os.environ.items()
            if not key.startswith(("DATABASE_URL", "CELERY_BROKER_URL", "CUPBOARD_"))}
    base.update(CUPBOARD_VAR_DIR=str(tmp_path), CUPBOARD_DEBUG="false", SECRET_KEY="readyz-test",
                DJANGO_SETTINGS_MODULE="cupboard.settings", **env)
    done = subprocess.run([sys.executable, "-c", PROBE], env=base, capture_output=True, text=True, timeout=PATIENCE)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.fixture
def services():
    if not (port_open(5432) and port_open(6379)):
        pytest.skip("needs PostgreSQL on 127.0.0.1:5432 and Redis on 127.0.0.1:6379")
    return {"DATABASE_URL": "postgres://postgres@127.0.0.1:5432/postgres",
            "CELERY_BROKER_URL": "redis://127.0.0.1:6379/13",
            "CUPBOARD_CACHE_URL": "redis://127.0.0.1:6379/13"}


def test_healthz_answers_without_touching_anything(monkeypatch):
    def no_io():
        raise AssertionError("healthz must not check anything")
    monkeypatch.setattr(health, "CHECKS", {"database": no_io})
    response = Client(SERVER_NAME="10.1.2.3").get("/healthz")
    assert (response.status_code, json.loads(response.content)) == (200, {"status": "ok"})
    assert response["Cache-Control"] == "no-store"


@pytest.mark.slow
def test_readyz_is_ready_when_every_part_answers(tmp_path, services):
    answer = _readyz(tmp_path, **services)
    assert answer["status"] == 200, answer
    assert answer["body"]["down"] == [] and set(answer["body"]["checks"]) == {"database", "broker", "cache", "storage"}
    assert list(tmp_path.joinpath("private", "health").iterdir()) == []  # the storage probe cleans up


@pytest.mark.slow
@pytest.mark.parametrize("part", ["database", "broker", "cache", "storage"])
def test_readyz_names_the_part_that_is_down(tmp_path, services, part):
    port = _closed_port()
    broken = {
        "database": {"DATABASE_URL": f"postgres://postgres@127.0.0.1:{port}/cupboard"},
        "broker": {"CELERY_BROKER_URL": f"redis://127.0.0.1:{port}/0"},
        "cache": {"CUPBOARD_CACHE_URL": f"redis://127.0.0.1:{port}/0"},
        "storage": {"CUPBOARD_STORAGE": "s3", "CUPBOARD_S3_ENDPOINT_URL": f"http://127.0.0.1:{port}",
                    "CUPBOARD_S3_ACCESS_KEY": "k", "CUPBOARD_S3_SECRET_KEY": "s"},
    }[part]
    answer = _readyz(tmp_path, **{**services, **broken})
    assert (answer["status"], answer["retry"]) == (503, str(health.RETRY_AFTER))
    assert answer["body"]["down"] == [part], answer
    assert str(port) not in json.dumps(answer["body"])  # the body names the part, never where it is


def test_a_part_that_hangs_costs_the_timeout_not_more():
    def hangs():
        time.sleep(5)
    started = time.monotonic()
    states = health.readiness({"fast": lambda: None, "hangs": hangs}, timeout=0.3)
    assert time.monotonic() - started < 2, "the point: a hanging part costs its timeout (0.3 s), not its hang (5 s)"
    assert states["fast"]["ok"] and states["hangs"] == {"ok": False, "error": "no answer within 0.3 s"}


def test_readyz_checks_once_while_its_answer_is_fresh(monkeypatch):
    """Each /readyz opened a database connection, a broker connection and three bucket calls:
    125 requests a second were 125 rounds. A process now checks once a second at most."""
    rounds = []
    monkeypatch.setattr(health, "CHECKS", {"database": lambda: rounds.append(1)})
    monkeypatch.setattr(health, "_last", None)
    monkeypatch.setattr(health, "FRESH_SECONDS", 3600.0)  # fresh for the whole test, however slow the machine
    answers = [Client(SERVER_NAME="10.1.2.3").get("/readyz") for _ in range(20)]
    assert {a.status_code for a in answers} == {200} and len(rounds) == 1
    monkeypatch.setattr(health, "FRESH_SECONDS", 0.0)
    assert Client(SERVER_NAME="10.1.2.3").get("/readyz").status_code == 200 and len(rounds) == 2


def _readyz_threads() -> set[threading.Thread]:
    """The check threads alive now, by identity: a count would let an earlier test's idle thread
    ending hide one of this test's still running."""
    return {thread for thread in threading.enumerate() if thread.name.startswith("readyz")}


def test_a_part_that_hangs_holds_one_thread_however_often_it_is_asked():
    released = threading.Event()
    before = _readyz_threads()
    try:
        for _ in range(5):
            states = health.readiness({"fast": lambda: None, "stuck": released.wait}, timeout=0.2)
            assert states["fast"]["ok"] and not states["stuck"]["ok"]
        assert states["stuck"]["error"] == "its previous check has not answered yet"
        deadline = time.monotonic() + 10  # the fast checks' idle threads end on their own, soon
        while len(_readyz_threads() - before) > 1:
            assert time.monotonic() < deadline, f"{len(_readyz_threads() - before)} threads: one per request was left behind"
            time.sleep(0.05)
    finally:
        released.set()
    deadline = time.monotonic() + 30
    while _readyz_threads() - before:
        assert time.monotonic() < deadline, "the released check's thread did not end within 30 s"
        time.sleep(0.05)
    assert health.readiness({"stuck": released.wait}, timeout=5)["stuck"]["ok"]


def test_a_beat_is_fresh_then_stale(tmp_path):
    path = heartbeat.beat_file("celery@host-a", tmp_path)
    assert "no heartbeat" in heartbeat.check("celery@host-a", 60, tmp_path)
    heartbeat.write_beat(path, now=time.time() - 90)
    assert "last heartbeat 90 s ago" in heartbeat.check("celery@host-a", 60, tmp_path)
    heartbeat.write_beat(path)
    assert heartbeat.check("celery@host-a", 60, tmp_path) is None


@pytest.mark.slow
def test_a_real_worker_beats_while_it_runs_and_clears_its_beat_when_stopped(tmp_path):
    env = {key: value for key, value in os.environ.items()
           if not key.startswith(("DATABASE_URL", "CELERY_BROKER_URL", "CUPBOARD_VAR_DIR"))}
    env.update(CUPBOARD_VAR_DIR=str(tmp_path))
    node = f"beat-{os.getpid()}@testhost"
    liveness = [sys.executable, "-m", "cupboard.heartbeat", "--node", node, "--max-age", "30"]
    worker = subprocess.Popen([str(Path(sys.executable).with_name("celery")), "-A", "cupboard", "worker",
                               "--pool=solo", "--without-mingle", "--without-gossip", "-n", node],
                              env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        def beating() -> bool:
            assert worker.poll() is None, "the worker exited"
            return subprocess.run(liveness, env=env, capture_output=True).returncode == 0
        wait_until(beating, every=0.5, what="the worker's first heartbeat")
    finally:
        worker.send_signal(signal.SIGTERM)
        worker.wait(timeout=30)
    stopped = subprocess.run(liveness, env=env, capture_output=True, text=True)
    assert stopped.returncode == 1 and "no heartbeat" in stopped.stderr


def test_the_compose_healthchecks_run_these_checks(tmp_path, settings):
    """docker/compose.yaml's healthchecks call what this file tests, with arguments it accepts."""
    from tests.project.dockerfile import compose

    services = compose()["services"]
    assert "/healthz" in " ".join(services["web"]["healthcheck"]["test"])
    assert services["proxy"]["depends_on"]["web"] == {"condition": "service_healthy"}
    command = services["worker"]["healthcheck"]["test"]
    assert command[1:4] == ["python", "-m", "cupboard.heartbeat"]
    settings.CUPBOARD_HEARTBEAT_DIR = tmp_path
    assert heartbeat.main([*command[4:], "--node", "celery@nowhere"]) == 1
    heartbeat.write_beat(heartbeat.beat_file("celery@nowhere"))
    assert heartbeat.main([*command[4:], "--node", "celery@nowhere"]) == 0
