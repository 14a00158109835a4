"""The job engine on its own (cupboard.jobs): claim, fence, heartbeat, progress, sweep, and
the send after COMMIT that survives a broker outage. A kind of its own over submission rows,
so these tests say what the engine does, whatever scoring makes of it."""
import ast
import os
import subprocess
import sys
import threading
import time
from datetime import timedelta
from pathlib import Path

import pytest
from django.db.models import Q
from django.utils import timezone

import cupboard
from cupboard.celery import app
from cupboard.jobs import JobKind, job_claim, job_enqueue, job_sweep
from cupboard.jobs.workers import worker_id
from cupboard.submissions.models import Submission
from tests.e2e.stack import ROOT, free_port
from tests.personas import build_cast
from tests.waiting import PATIENCE, wait_until

QUEUED, RUNNING = Submission.Status.QUEUED, Submission.Status.SCORING
given_up = []

KIND = JobKind(name="test job", model=Submission, task="cupboard.submissions.tasks.score_submission",
               waiting=Q(status=QUEUED), running=Q(status=RUNNING), take={"status": RUNNING},
               put_back={"status": QUEUED, "status_reason": "put back"},
               stale_after=lambda: 60, resend_after=lambda: 30, max_attempts=lambda: 2, sweep_limit=2)
GIVING_UP = JobKind(**{**KIND.__dict__, "give_up": lambda row: {"status": Submission.Status.FAILED},
                       "gave_up": given_up.append})


@pytest.fixture
def phase(db):
    return build_cast().competition.phases.get(slug="dev")


def row(phase, number=1, **fields) -> Submission:
    return Submission.objects.create(phase=phase, number=number, method_name="m", queued_at=timezone.now(), **fields)


def test_it_claims_a_waiting_row_once(phase):
    job = row(phase)
    claim = job_claim(KIND, job.pk)
    assert claim is not None and job_claim(KIND, job.pk) is None  # a duplicate delivery does nothing
    job.refresh_from_db()
    assert (job.status, job.attempts, job.claimed_by, job.claimed_at) == (RUNNING, 1, worker_id(), claim.token)


def test_a_stale_owner_s_late_write_is_refused(phase):
    job = row(phase)
    then = timezone.now() - timedelta(seconds=61)
    stale = job_claim(KIND, job.pk, now=then)
    fresh = job_claim(KIND, job.pk)  # its worker went silent for the stale period: taken over
    assert fresh is not None and fresh.token != stale.token
    assert not stale.update(status=Submission.Status.SCORED) and not stale.progress(1, 1)
    assert fresh.update(status=Submission.Status.SCORED)
    job.refresh_from_db()
    assert job.status == Submission.Status.SCORED and job.attempts == 2


def test_it_claims_no_more_than_the_attempts_allowed(phase):
    job = row(phase, attempts=2)
    assert job_claim(KIND, job.pk) is None


def test_progress_is_a_heartbeat_the_pages_can_show(phase):
    job = row(phase)
    claim = job_claim(KIND, job.pk, now=timezone.now() - timedelta(seconds=30))
    assert claim.progress(2, 3)
    job.refresh_from_db()
    assert job.progress == 60 and job.heartbeat_at > claim.token


@pytest.mark.django_db(transaction=True)  # the heartbeat thread's own connection must see the claim
def test_the_heartbeat_beats_while_the_work_runs_and_stops_when_the_claim_is_lost(settings):
    settings.CUPBOARD_STALE_AFTER = 3  # a beat a second
    job = row(build_cast().competition.phases.get(slug="dev"))
    claim = job_claim(KIND, job.pk)
    with claim.heartbeat():
        wait_until(lambda: Submission.objects.get(pk=job.pk).heartbeat_at > claim.token, what="a first beat")
        Submission.objects.filter(pk=job.pk).update(claimed_at=timezone.now())  # taken over
        # the thread ends on its own, the block still running: its next beat found the claim lost
        wait_until(lambda: not [t for t in threading.enumerate() if t.name == "cupboard-heartbeat"],
                   what="the heartbeat thread to stop")


def test_the_sweep_puts_back_silent_work_and_sends_it_again(phase, django_capture_on_commit_callbacks):
    job = row(phase)
    now = timezone.now()
    job_claim(KIND, job.pk, now=now - timedelta(seconds=59))
    assert job_sweep(KIND, now=now)["put_back"] == 0  # not silent long enough
    with django_capture_on_commit_callbacks() as callbacks:
        assert job_sweep(KIND, now=now + timedelta(seconds=2)) == {"put_back": 1, "resent": 0, "failed": 0}
    job.refresh_from_db()
    assert job.status == QUEUED and job.status_reason == "put back" and len(callbacks) == 1


def test_the_sweep_resends_lost_messages_at_a_bounded_rate(phase, django_capture_on_commit_callbacks):
    jobs = [row(phase, number) for number in (1, 2, 3)]
    later = jobs[-1].queued_at + timedelta(seconds=31)
    with django_capture_on_commit_callbacks():
        assert job_sweep(KIND, now=later)["resent"] == 2  # sweep_limit: the two oldest
        assert job_sweep(KIND, now=later)["resent"] == 1  # the third; the others were just sent
        assert job_sweep(KIND, now=later + timedelta(seconds=29))["resent"] == 0
        assert job_sweep(KIND, now=later + timedelta(seconds=31))["resent"] == 2


def test_out_of_attempts_the_sweep_gives_up_or_leaves_the_row(phase):
    job = row(phase, attempts=2, status=RUNNING, claimed_at=timezone.now() - timedelta(minutes=5))
    assert job_sweep(KIND)["failed"] == 0
    assert Submission.objects.get(pk=job.pk).status == RUNNING  # no give_up declared: left alone
    assert job_sweep(GIVING_UP)["failed"] == 1 and given_up[-1] == job.pk
    assert Submission.objects.get(pk=job.pk).status == Submission.Status.FAILED


def _drain(queue) -> None:
    while True:
        try:
            queue.get(block=False).ack()
        except queue.Empty:
            return


def test_it_sends_after_the_commit(phase, django_capture_on_commit_callbacks):
    with app.connection_for_read() as connection:
        queue = connection.SimpleQueue(app.conf.task_default_queue)
        _drain(queue)  # messages of earlier tests that no worker took
        with django_capture_on_commit_callbacks(execute=False) as callbacks:
            job_enqueue(KIND, [4242])
        assert _ours(queue, timeout=1) is None  # nothing before the commit
        callbacks[0]()
        message = _ours(queue, timeout=60)
        queue.close()
    assert message is not None and message.headers["task"] == KIND.task


def _ours(queue, *, timeout: float):
    """The message for row 4242, or None after `timeout`; another test's late message (an
    earlier test's send after commit, arriving after the drain) is acknowledged and passed over."""
    deadline = time.monotonic() + timeout
    while (left := deadline - time.monotonic()) > 0:
        try:
            message = queue.get(timeout=left)
        except queue.Empty:
            return None
        message.ack()
        if message.headers["argsrepr"] == "(4242,)":
            return message
    return None


SEND = """
import django
django.setup()
from cupboard.celery import app
from cupboard.jobs import job_send
from cupboard.submissions.scoring import SCORING
print(job_send(SCORING, [1, 2, 3]))
"""


def test_a_broker_outage_fails_no_caller():
    env = {**os.environ, "CELERY_BROKER_URL": f"redis://127.0.0.1:{free_port()}/0",
           "DJANGO_SETTINGS_MODULE": "cupboard.settings"}
    sent = subprocess.run([sys.executable, "-c", SEND], cwd=ROOT, env=env, capture_output=True, text=True, timeout=PATIENCE)
    assert sent.returncode == 0 and sent.stdout.strip() == "0", sent.stderr
    assert "the stale sweeper will send it again" in sent.stderr


def _declared_kinds() -> set[str]:
    """The `name` of every JobKind(...) written in platform/cupboard, read with ast."""
    names = set()
    for path in Path(cupboard.__file__).parent.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "JobKind":
                names |= {k.value.value for k in node.keywords if k.arg == "name" and isinstance(k.value, ast.Constant)}
    return names


def test_every_kind_of_job_is_tested_with_a_real_worker_and_swept_by_the_one_beat_task():
    from cupboard.flows.jobs import KINDS
    from tests.jobs.test_kinds_with_a_real_worker import CASES

    assert _declared_kinds() == {case.kind.name for case in CASES.values()} == {kind.name for kind in KINDS} == {
        "scoring", "pool export", "verification", "mail", "results archive", "follow-up", "rank bands",
        "system execution"}
