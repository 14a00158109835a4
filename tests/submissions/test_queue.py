"""A submission's place in the scoring queue and the estimate of when it is scored (queue.py)."""
import json
import os
import socket
import subprocess
import sys
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from cupboard.submissions.models import Submission
from cupboard.submissions.queue import queue_place
from cupboard.submissions.scoring import submission_sweep_stale
from cupboard.submissions.services import submission_create

from .conftest import good_sw, run_bytes, upload


def _baseline(world, name: str) -> Submission:
    """A baseline of its own files (the same files again would answer with the first)."""
    tag = "".join(c for c in name if c.isalnum())
    return submission_create(phase=world.dev, team=None, user=world.organizer, method_name=name, is_baseline=True,
                             files=[(upload("run.sw.txt", run_bytes(good_sw(), tag=tag)), None)])


def _set(submission: Submission, **fields) -> None:
    Submission.objects.filter(pk=submission.pk).update(**fields)
    submission.refresh_from_db()


def _scored_earlier(world, name: str, *, seconds: float, worker: str, minutes_ago: float = 1) -> Submission:
    done = _baseline(world, name)
    scored_at = timezone.now() - timedelta(minutes=minutes_ago)
    _set(done, status=Submission.Status.SCORED, claimed_by=worker, claimed_at=scored_at - timedelta(seconds=seconds),
         scored_at=scored_at)
    return done


@pytest.fixture
def line(world):
    """Three baselines queued one after the other (a minute apart)."""
    now = timezone.now()
    runs = [_baseline(world, f"run {i}") for i in range(3)]
    for i, run in enumerate(runs):
        _set(run, waiting_since=now - timedelta(minutes=3 - i))
    return runs


def test_the_place_counts_the_runs_that_joined_the_queue_earlier(world, line):
    assert [queue_place(run).ahead for run in line] == [0, 1, 2]


def test_runs_waiting_for_judgments_or_being_scored_are_not_in_line(world, line):
    _set(line[0], status_reason=Submission.WAITING_FOR_JUDGMENTS)
    _set(line[1], status=Submission.Status.SCORING, claimed_by="host:1", claimed_at=timezone.now())
    assert queue_place(line[0]) is None
    assert queue_place(line[1]).ahead is None and queue_place(line[2]).ahead == 0


def test_a_run_put_back_after_its_worker_died_keeps_its_place(world, line, settings):
    long_ago = timezone.now() - timedelta(minutes=5)
    _set(line[0], status=Submission.Status.SCORING, claimed_by="gone:1", claimed_at=long_ago, heartbeat_at=long_ago,
         attempts=1)
    assert submission_sweep_stale()["put_back"] == 1
    line[0].refresh_from_db()
    assert line[0].status == Submission.Status.QUEUED
    assert [queue_place(run).ahead for run in line] == [0, 1, 2]


def test_the_estimate_is_the_median_scoring_time_spread_over_the_live_workers(world, line):
    for seconds, worker in ((10, "a:1"), (20, "a:2"), (30, "a:1")):
        _scored_earlier(world, f"done {seconds}", seconds=seconds, worker=worker)
    place = queue_place(line[2])
    assert (place.ahead, place.workers, place.seconds_each) == (2, 2, 20)
    assert place.estimate_seconds == (2 / 2 + 0.5) * 20 + 20
    assert "2 runs across the site ahead of it in the queue; likely scored in about 50 s" in place.text(timezone.now())


def test_a_process_of_this_host_that_ended_is_no_worker(world, line):
    """load_demo scores the demo's runs in its own process and ends: its scorings give the pace,
    but it is not a worker the queue waits on (the demo's first estimate was 5x short)."""
    ended = subprocess.Popen([sys.executable, "-c", "pass"])
    ended.wait()
    _scored_earlier(world, "by load_demo", seconds=10, worker=f"{socket.gethostname()}:{ended.pid}")
    _scored_earlier(world, "by a worker", seconds=10, worker=f"{socket.gethostname()}:{os.getpid()}")
    place = queue_place(line[2])
    assert (place.workers, place.seconds_each) == (1, 10)
    assert place.estimate_seconds == (2 / 1 + 0.5) * 10 + 10


def test_a_phase_with_few_scorings_borrows_the_site_s_pace(world, line):
    _scored_earlier(world, "only one", seconds=40, worker="a:1")
    assert queue_place(line[0]).seconds_each == 40
    for seconds in (1, 2, 3):
        _scored_earlier(world, f"quick {seconds}", seconds=seconds, worker="a:1")
    assert queue_place(line[0]).seconds_each == 2.5  # the phase's last four: 40, 1, 2, 3


def test_no_estimate_without_a_scoring_to_go_by_or_a_worker_seen_lately(world, line):
    now = timezone.now()
    assert queue_place(line[1]).estimate_seconds is None
    assert queue_place(line[1]).text(now) == "1 run across the site ahead of it in the queue; an estimate follows once a run has been scored."
    _scored_earlier(world, "long ago", seconds=30, worker="a:1", minutes_ago=60)
    place = queue_place(line[1])
    assert (place.seconds_each, place.workers, place.estimate_seconds) == (30, 0, None)
    assert "no worker has scored a run in the last 10 minutes" in place.text(now)


def test_a_run_being_scored_has_what_its_progress_leaves(world, line):
    _scored_earlier(world, "done", seconds=60, worker="a:1")
    _set(line[0], status=Submission.Status.SCORING, claimed_by="a:1", claimed_at=timezone.now(),
         heartbeat_at=timezone.now(), progress=25)
    place = queue_place(line[0])
    assert (place.ahead, place.estimate_seconds) == (None, 45)
    assert place.text(timezone.now()) == "Being scored; about 45 s left."


def test_the_status_json_and_the_page_show_the_place(world, line):
    _scored_earlier(world, "done", seconds=60, worker="a:1")
    client = Client()
    client.force_login(world.organizer)
    answer = json.loads(client.get(f"/submissions/{line[2].pk}/status/").content)
    assert (answer["queue"]["position"], answer["queue"]["ahead"], answer["queue"]["workers"]) == (3, 2, 1)
    assert answer["queue"]["estimate_seconds"] == (2 + 0.5) * 60 + 60
    page = client.get(f"/submissions/{line[2].pk}/").content.decode()
    assert "2 runs across the site ahead of it in the queue; likely scored in about 4 min" in page
    _set(line[2], status=Submission.Status.SCORED)
    assert json.loads(client.get(f"/submissions/{line[2].pk}/status/").content)["queue"] is None
