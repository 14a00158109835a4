"""A submission's subsets scored side by side in forked processes, within the worker's
budget: the same scores as one after another, while the heartbeat thread keeps beating."""
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from unittest import mock

import pytest
from django.test import override_settings

from cupboard.jobs import claims, workers
from cupboard.submissions import readcache, scoring_jobs
from cupboard.submissions.models import QueryScores, Score
from cupboard.submissions.scoring import submission_score
from cupboard.submissions.scoring_jobs import scoring_processes
from cupboard.submissions.services import submission_create
from tests.waiting import wait_until

from .conftest import good_sw, run_bytes, upload


def _submitted(world, tag: str = "test"):
    """Runs of sw and te (yo, hidden, counts 0 without a run): three subsets to score."""
    files = [(upload("run.sw.txt", run_bytes(good_sw(), tag=tag)), None),
             (upload("run.te.txt", run_bytes({"1": ["10#1"], "2": ["29#1", "20#1"]}, tag=tag)), None)]  # yo (hidden): none, 0
    return submission_create(phase=world.dev, team=world.team_a, user=world.participant, method_name="BM25",
                             files=files)


def _scored(world, processes: int) -> tuple[dict, dict]:
    submission = _submitted(world, tag=f"p{processes}")  # not a duplicate of the other one
    with override_settings(CUPBOARD_SCORING_PROCESSES=processes):
        assert submission_score(submission_id=submission.pk) == "scored"
    scores = {(s.subset.code, s.metric): s.value for s in Score.objects.filter(submission=submission)
              .select_related("subset")}
    per_query = {q.subset.code: q.values for q in QueryScores.objects.filter(submission=submission)
                 .select_related("subset")}
    return scores, per_query


def test_it_scores_the_same_in_processes_as_one_after_another(world):
    alone, together = _scored(world, 1), _scored(world, 2)
    assert alone == together and len(alone[0]) == 6 and alone[0][("te", "nDCG@10")] > 0


@contextmanager
def _slow_scoring(*, processes: int, delay: float = 0, pids: Path | None = None) -> Iterator[list[float]]:
    """Scoring on `processes`, with a heartbeat every 0.1 s: yields the list of the beats' times.
    Each qrels read is `delay` s slower; with `pids`, each read notes its process there and
    holds instead until two processes read at once and the heartbeat has beaten five times
    (a rendezvous, not a clock: a busy host may start the second process late)."""
    real_read_qrels, beats = scoring_jobs.read_qrels, []

    def beaten() -> int:  # the beats as the parent's heartbeat thread wrote them, seen from a forked process
        return len(pids.with_name("beats").read_text().split()) if pids.with_name("beats").exists() else 0

    def slow_read_qrels(*args, **kwargs):
        if pids:
            with open(pids, "a") as out:
                out.write(f"{os.getpid()}\n")
            wait_until(lambda: len(set(pids.read_text().split())) >= 2 and beaten() >= 5,
                       what=lambda: f"two processes reading at once and five beats: {pids.read_text().split()}, {beaten()}")
        time.sleep(delay)
        return real_read_qrels(*args, **kwargs)

    def beat_counted(beat):
        beats.append(time.monotonic())
        if pids:
            with open(pids.with_name("beats"), "a") as out:
                out.write("beat\n")
        return beat()

    def counted_heartbeat(beat):
        return workers.heartbeat(lambda: beat_counted(beat))

    readcache.evaluators.clear()  # read the qrels (slowly) here, not from an earlier test's cache
    with override_settings(CUPBOARD_SCORING_PROCESSES=processes), \
            mock.patch.object(scoring_jobs, "read_qrels", slow_read_qrels), \
            mock.patch.object(workers, "heartbeat_interval", lambda: 0.1), \
            mock.patch.object(claims, "heartbeat", counted_heartbeat):
        yield beats


@pytest.mark.django_db(transaction=True)  # the heartbeat thread's own connection must see the claimed row
def test_it_runs_the_subsets_in_other_processes_while_the_heartbeat_beats(world, tmp_path):
    submission = _submitted(world)
    pids = tmp_path / "pids"
    with _slow_scoring(processes=2, pids=pids) as beats:
        outcomes = [submission_score(submission_id=submission.pk)]
        # On the tests' in-memory SQLite, a beat's write and the scoring's reads can meet on a busy
        # host: its shared cache refuses a table being written at once ("database table is locked"),
        # where a database file waits, and the scoring queues the run again as in any outage (a
        # failed .ci/run at load 4-7). The worker's next delivery scores it: so does this loop.
        while outcomes[-1] == "queued" and len(outcomes) < 5:
            outcomes.append(submission_score(submission_id=submission.pk))
    assert outcomes[-1] == "scored", outcomes
    ran_in = set(pids.read_text().split())
    assert len(ran_in) >= 2 and str(os.getpid()) not in ran_in
    assert len(beats) >= 5  # beats while the subsets were read in the other processes


def test_it_does_not_beat_inside_the_callers_transaction(world):
    """load_demo scores inside its transaction: nobody can see that claim, and a beat would wait
    for the transaction (the row lock, or SQLite's "database is locked") and the scoring for it."""
    submission = _submitted(world)  # this test's transaction is still open
    with _slow_scoring(processes=1, delay=0.3) as beats:  # time for beats that must not come
        assert submission_score(submission_id=submission.pk) == "scored"
    assert beats == []


@pytest.mark.parametrize("configured, concurrency, cores, expected", [
    (0, 2, 2, 1), (0, 1, 2, 2), (0, 4, 2, 1), (0, 2, 8, 4), (3, 2, 2, 3)])
def test_its_budget_is_the_cores_per_worker_process(configured, concurrency, cores, expected):
    with override_settings(CUPBOARD_SCORING_PROCESSES=configured, CUPBOARD_WORKER_CONCURRENCY=concurrency), \
            mock.patch("evaluator.engines.parallel.usable_cores", return_value=cores):
        assert scoring_processes() == expected
