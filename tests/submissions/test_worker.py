"""A real Celery worker process scores a submission sent through a real Redis broker, and again
through a real RabbitMQ (`each_broker`).

Run with PostgreSQL, Redis and RabbitMQ (the worker must see the test database):
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/cupboard_x CELERY_BROKER_URL=redis://127.0.0.1:6379/14 \
        AMQP_URL=amqp://guest:guest@127.0.0.1:5672// .venv/bin/python -m pytest tests/submissions/test_worker.py
"""
import os
import signal
import time

import pytest

from cupboard.submissions.models import Submission
from cupboard.submissions.services import submission_create
from cupboard.submissions.tasks import score_submission
from tests.celery_worker import each_broker, start_worker, stop  # noqa: F401 - each_broker is a fixture
from tests.waiting import PATIENCE, wait_until

from .conftest import good_sw, upload

pytestmark = [pytest.mark.postgres, pytest.mark.redis, pytest.mark.worker, pytest.mark.django_db(transaction=True)]


def wait_for(submission: Submission, status: str, *, seconds: float = PATIENCE, why: str = "") -> Submission:
    """Wait until `submission` is in `status`; `why` says why the deadline matters when it is the point."""
    def reached() -> bool:
        submission.refresh_from_db()
        return submission.status == status
    wait_until(reached, seconds=seconds, every=0.1,
               what=lambda: f"{status} (still {submission.status}: {submission.status_reason}){why}")
    return submission


@pytest.fixture
def worker(tmp_path, each_broker):
    with open(tmp_path / "worker.log", "wb") as log:
        process = start_worker(log)
        yield process
        stop(process)


def test_it_scores_through_a_real_worker_and_a_second_message_is_harmless(world, worker, tmp_path):
    submission = submission_create(phase=world.dev, team=world.team_a, user=world.participant, method_name="BM25",
                                   files=[(upload("run.sw.txt", good_sw()), None)])
    wait_for(submission, Submission.Status.SCORED)
    assert submission.attempts == 1 and submission.scores.count() == 6
    duplicate = score_submission.delay(submission.pk)  # a duplicate message, as after a redelivery
    wait_until(lambda: f"[{duplicate.id}] succeeded" in (tmp_path / "worker.log").read_text(errors="replace"),
               what="the worker to run the duplicate message")
    submission.refresh_from_db()
    assert submission.attempts == 1 and submission.status == Submission.Status.SCORED
    assert worker.poll() is None


def test_a_prefork_worker_scores_the_subsets_in_processes_of_its_own(world, each_broker, tmp_path):
    """Celery marks its pool children daemonic; scoring still forks its own processes."""
    with open(tmp_path / "worker.log", "wb") as log:
        worker = start_worker(log, "--pool=prefork", "--concurrency=1", CUPBOARD_SCORING_PROCESSES="2")
        try:
            submission = submission_create(phase=world.dev, team=world.team_a, user=world.participant,
                                           method_name="BM25", files=[(upload("run.sw.txt", good_sw()), None)])
            wait_for(submission, Submission.Status.SCORED)
            assert submission.attempts == 1 and submission.scores.count() == 6
        finally:
            stop(worker)


def _claimed_by_worker(world) -> tuple[Submission, int]:
    """A submission, claimed by a worker paused mid-task (CUPBOARD_JOB_PAUSE): (it, the pid holding it)."""
    submission = submission_create(phase=world.dev, team=world.team_a, user=world.participant, method_name="BM25",
                                   files=[(upload("run.sw.txt", good_sw()), None)])
    wait_for(submission, Submission.Status.SCORING)
    return submission, int(submission.claimed_by.rsplit(":", 1)[1])


def _rescored_within(submission: Submission, seconds: float) -> float:
    started = time.monotonic()
    wait_for(submission, Submission.Status.SCORED, seconds=seconds,
             why=f"\nThis deadline is the point: with the default settings a killed worker's submission is "
                 f"scored again within {seconds:.0f} s (settings.py, docs/deployment.md).")
    took = time.monotonic() - started
    print(f"\nscored again {took:.1f} s after the kill")  # docs/deployment.md's recovery times (pytest -s)
    assert submission.attempts == 2 and submission.scores.count() == 6
    return took


def test_a_killed_pool_child_s_submission_is_scored_again_within_30_s(world, each_broker, tmp_path):
    """The child dies; its message comes back at once (reject_on_worker_lost) to a new child of
    the same worker, which sees that the claiming process is gone and takes it (default settings)."""
    with open(tmp_path / "worker.log", "wb") as log:
        worker = start_worker(log, "--pool=prefork", "--concurrency=1", CUPBOARD_JOB_PAUSE="60")
        try:
            submission, child = _claimed_by_worker(world)
            assert child != worker.pid
            os.kill(child, signal.SIGKILL)
            _rescored_within(submission, 30)
            assert worker.poll() is None
        finally:
            stop(worker)


def test_a_killed_worker_s_submission_is_scored_again_within_30_s(world, each_broker, tmp_path):
    """The whole worker (parent and children) dies; another worker with the default settings
    (its beat runs the sweeper) scores the submission again."""
    with open(tmp_path / "doomed.log", "wb") as doomed_log, open(tmp_path / "rescuer.log", "wb") as rescuer_log:
        doomed = start_worker(doomed_log, "--pool=prefork", "--concurrency=1", CUPBOARD_JOB_PAUSE="60")
        rescuer = None
        try:
            submission, _ = _claimed_by_worker(world)
            rescuer = start_worker(rescuer_log, "--pool=solo", "-B", "--schedule", str(tmp_path / "beat-schedule"))
            wait_until(lambda: b"ready" in (tmp_path / "rescuer.log").read_bytes(), what="the rescuer to be ready")
            os.killpg(doomed.pid, signal.SIGKILL)
            _rescored_within(submission, 30)
        finally:
            stop(doomed)
            if rescuer is not None:
                stop(rescuer)
