"""Every kind of job (cupboard.jobs) with a real Celery worker: killed with SIGKILL mid-work,
its work is finished by another worker's sweeper; its message lost, the sweeper sends it
again; its message delivered twice, the work runs once.

Each case makes its row through the app's own service, then the broker's queue is purged, so
each scenario sends exactly the messages it is about. Run with PostgreSQL and Redis (the
worker must see the test database):
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/cupboard_x CELERY_BROKER_URL=redis://127.0.0.1:6379/14 \\
        .venv/bin/python -m pytest tests/jobs/test_kinds_with_a_real_worker.py
"""
from __future__ import annotations

import os
import signal
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from django.db.models import F, Q

from cupboard.celery import app
from cupboard.followups.codec import encode
from cupboard.followups.models import FollowUp
from cupboard.followups.services import FOLLOW_UP
from cupboard.jobs import JobKind, job_send
from cupboard.judging.pools import POOL_EXPORT, pool_export_create
from cupboard.leaderboards.archive import RESULTS_ARCHIVE
from cupboard.leaderboards.bands import BANDS
from cupboard.leaderboards.models import BandsJob
from cupboard.notifications.models import Notification
from cupboard.notifications.services import NOTIFICATION
from cupboard.submissions.events import RunScored
from cupboard.submissions.models import Submission, Verification
from cupboard.submissions.scoring import SCORING, submission_score
from cupboard.submissions.services import submission_create
from cupboard.submissions.verification import VERIFICATION, verification_request
from cupboard.systems.kind import EXECUTION
from tests.celery_worker import broker, start_worker, stop  # noqa: F401 - broker is a fixture
from tests.judging.conftest import build_scene
from tests.submissions.conftest import (  # noqa: F401 - _worlds and world are fixtures
    _worlds,
    good_sw,
    upload,
    world,
)
from tests.waiting import wait_until

pytestmark = [pytest.mark.postgres, pytest.mark.redis, pytest.mark.worker, pytest.mark.django_db(transaction=True)]

# The rescuing worker's periods, short so that each scenario takes seconds.
QUICK = {"CUPBOARD_STALE_AFTER": "2", "CUPBOARD_SWEEP_INTERVAL": "1", "CUPBOARD_RESEND_AFTER": "1",
         "CUPBOARD_MAIL_INTERVAL": "1", "CUPBOARD_MAIL_RETRY_AFTER": "1", "CUPBOARD_FOLLOW_UP_RETRY_AFTER": "1"}


@dataclass(frozen=True)
class Case:
    kind: JobKind
    make: Callable[[pytest.FixtureRequest], int]  # the row, made by its service; returns its id
    finished: Q  # finished work

    def attempts(self, pk: int) -> int:
        return self.kind.model.objects.values_list("attempts", flat=True).get(pk=pk)

    def is_finished(self, pk: int) -> bool:
        return self.kind.model.objects.filter(self.finished, pk=pk).exists()


def _submission(request) -> int:
    world = request.getfixturevalue("world")
    return submission_create(phase=world.dev, team=world.team_a, user=world.participant, method_name="BM25",
                             files=[(upload("run.sw.txt", good_sw()), None)]).pk


def _verification(request) -> int:
    world = request.getfixturevalue("world")
    assert submission_score(submission_id=_submission(request)) == "scored"
    return verification_request(phase=world.dev, actor=world.organizer, reason=Verification.Reason.ORGANIZER).pk


def _mail(request) -> int:
    """One of the mails that a scored submission's team gets."""
    submission = _submission(request)
    assert submission_score(submission_id=submission) == "scored"
    return Notification.objects.filter(submission_id=submission).values_list("pk", flat=True).first()


def _pool_export(request) -> int:
    scene = build_scene()
    return pool_export_create(phase=scene.dev, actor=scene.organizer, depth=3).pk


def _results_archive(request) -> int:
    """An archive of Test B, its results frozen as at its reveal (a released run in it)."""
    from datetime import timedelta

    from cupboard.leaderboards.archive import results_archive_create
    from cupboard.leaderboards.services import leaderboard_refresh
    from cupboard.leaderboards.snapshots import snapshot_freeze
    from tests.factories import make_qrels_release
    from tests.submissions.conftest import JUDGMENTS

    world = request.getfixturevalue("world")
    make_qrels_release(world.test_b, JUDGMENTS)
    submission = submission_create(phase=world.test_b, team=world.team_a, user=world.participant, method_name="BM25",
                                   files=[(upload("run.sw.txt", good_sw()), None)], release_consent=True)
    assert submission_score(submission_id=submission.pk) == "scored"
    leaderboard_refresh(phase=world.test_b)
    assert snapshot_freeze(phase=world.test_b, now=world.test_b.reveal_at + timedelta(seconds=1)) is not None
    return results_archive_create(phase=world.test_b, actor=world.organizer).pk


def _follow_up(request) -> int:
    """A scored run's leaderboard row still owed (as if its process died right after the commit)."""
    submission = _submission(request)
    assert submission_score(submission_id=submission) == "scored"
    return FollowUp.objects.create(event="run scored", handler="cupboard.flows.run_scored.leaderboard_row_update",
                                   what="the leaderboard row",
                                   arguments=encode(RunScored(submission=Submission.objects.get(pk=submission)))).pk


def _bands(request) -> int:
    """A scored run's board update: the board's rank bands wanted from the job."""
    submission = _submission(request)
    assert submission_score(submission_id=submission) == "scored"
    return BandsJob.objects.get(phase__submissions=submission).pk


def _execution(request) -> int:
    """A team's system (the example BM25 image) in the dev phase made blind; no corpus, so its runs
    are empty and refused by the run validation: finished either way, as the engine sees it."""
    from cupboard.competitions.models import Phase
    from cupboard.systems.sandbox import sandbox_problem
    from cupboard.systems.services import system_upload
    from tests.systems.conftest import image_upload
    from tests.systems.image_tars import example_image

    if sandbox_problem():
        pytest.skip(f"no sandbox here: {sandbox_problem()}")
    world = request.getfixturevalue("world")
    Phase.objects.filter(pk=world.dev.pk).update(kind=Phase.Kind.SYSTEMS)
    world.dev.refresh_from_db()
    system = system_upload(phase=world.dev, team=world.team_a, user=world.participant, method_name="BM25",
                           image=image_upload(example_image().read_bytes(), "bm25.tar"))
    return system.executions.get().pk


CASES = {
    "scoring": Case(SCORING, _submission, Q(status="scored")),
    "pool export": Case(POOL_EXPORT, _pool_export, Q(status="done")),
    "verification": Case(VERIFICATION, _verification, Q(status="passed")),
    "notification": Case(NOTIFICATION, _mail, Q(sent_at__isnull=False)),
    "results archive": Case(RESULTS_ARCHIVE, _results_archive, Q(status="done")),
    "follow-up": Case(FOLLOW_UP, _follow_up, Q(status="done")),
    "rank bands": Case(BANDS, _bands, Q(status="done", landed=F("wanted"))),
    "system execution": Case(EXECUTION, _execution, Q(status__in=["done", "refused"])),
}


@pytest.fixture(params=list(CASES))
def case(request, broker) -> Case:
    return CASES[request.param]


@pytest.fixture
def made(case, request) -> int:
    """The case's row, its messages lost (and those of whatever its setup sent)."""
    pk = case.make(request)
    app.control.purge()
    return pk


class Workers:
    def __init__(self, folder: Path):
        self.folder, self.started = folder, []

    def start(self, name: str, *options: str, **env: str):
        with open(self.folder / f"{name}.log", "wb") as log:
            self.started.append(start_worker(log, *options, **env))
        return self.started[-1]

    def log(self, name: str) -> str:
        return (self.folder / f"{name}.log").read_text(errors="replace")

    def rescuer(self, **env: str):
        """A worker whose beat runs the sweepers every second."""
        return self.start("rescuer", "--pool=solo", "-B", "--schedule", str(self.folder / "beat"), **QUICK, **env)


@pytest.fixture
def workers(tmp_path):
    started = Workers(tmp_path)
    yield started
    for process in started.started:
        stop(process)


def test_a_worker_killed_mid_work_leaves_it_to_another(case, made, workers):
    doomed = workers.start("doomed", "--pool=solo", CUPBOARD_JOB_PAUSE="60")
    job_send(case.kind, [made])
    wait_until(lambda: case.attempts(made) == 1, what="claimed")
    assert case.kind.model.objects.filter(case.kind.running, pk=made).exists()
    os.killpg(doomed.pid, signal.SIGKILL)
    workers.rescuer()
    wait_until(lambda: case.is_finished(made), what="finished by the rescuer")
    assert case.attempts(made) == 2


def test_a_lost_message_is_sent_again_by_the_sweeper(case, made, workers):
    workers.rescuer()
    wait_until(lambda: case.is_finished(made), what="finished after the sweeper's send")
    assert case.attempts(made) == 1


def test_a_message_delivered_twice_runs_the_work_once(case, made, workers):
    job_send(case.kind, [made])
    job_send(case.kind, [made])
    workers.start("worker", "--pool=prefork", "--concurrency=2", CUPBOARD_JOB_PAUSE="2")
    # Both deliveries run; the work's own end may be written after the second's log line
    # (a follow-up of the first), so the row is waited for too.
    wait_until(lambda: workers.log("worker").count("succeeded") >= 2 and case.is_finished(made),
               what=lambda: "both deliveries run and the work finished\n" + workers.log("worker")[-3000:])
    assert case.attempts(made) == 1
