"""A worker killed with SIGKILL while scoring loses nothing: a second worker's sweeper finds
the stale claim, queues it again, and the submission ends scored, once, with the scores the
evaluator CLI gives and attempts == 2.

The first worker is slowed with CUPBOARD_JOB_PAUSE (seconds slept right after the first
claim, off by default) so there is a moment to kill it in; the second one runs with the
default stale period and sweep interval. (The filesystem broker loses the killed worker's
message: the sweeper alone brings the work back.)
"""
from __future__ import annotations

import os
import signal

import pytest

from tests.e2e.stack import SUBMIT, expected_scores, prepared_stack, wait_until

pytestmark = [pytest.mark.worker, pytest.mark.slow]

def test_it_scores_a_submission_whose_worker_was_killed_mid_task(tmp_path):
    stack, files = prepared_stack(tmp_path)
    with stack:
        doomed = stack.start_worker("doomed", CUPBOARD_JOB_PAUSE="60")
        stack.manage("shell", "-c", SUBMIT.format(run=str(files["run"])))
        wait_until(lambda: stack.query("SELECT status FROM submissions_submission") == [("scoring",)],
                   seconds=30, what="the first worker to claim the submission")
        os.killpg(doomed.pid, signal.SIGKILL)  # the worker and its embedded beat, mid-task
        doomed.wait(timeout=10)
        assert stack.query("SELECT status, attempts FROM submissions_submission") == [("scoring", 1)]

        stack.start_worker("rescuer")
        wait_until(lambda: stack.query("SELECT status FROM submissions_submission") == [("scored",)],
                   seconds=60, what=f"the rescued submission to be scored\n{stack.log('rescuer')[-3000:]}")

    assert stack.query("SELECT count(*), max(attempts) FROM submissions_submission") == [(1, 2)]
    expected = expected_scores(files)["subsets"]["sw"]
    stored = dict(stack.query("SELECT metric, value FROM submissions_score"))
    assert stored.keys() == expected.keys()
    assert all(abs(stored[m] - expected[m]) < 1e-12 for m in expected)
    assert stack.query("SELECT count(*) FROM submissions_queryscores") == [(1,)]
    assert stack.query("SELECT count(*) FROM leaderboards_leaderboardrow") == [(1,)]
