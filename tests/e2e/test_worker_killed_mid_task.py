"""A worker killed with SIGKILL while scoring loses nothing: a second worker's sweeper finds
the stale claim, queues it again, and the submission ends scored, once, with the scores the
evaluator CLI gives and attempts == 2.

The first worker is slowed with CUPBOARD_JOB_PAUSE (seconds slept right after the first
claim, off by default) so there is a moment to kill it in, and runs no beat: its sweeps
would queue before the submission's message on a busy host (six beat tasks every 5 s for one
solo process); the second one runs with the beat and the default stale period and sweep
interval. (The filesystem broker loses the killed worker's
message: the sweeper alone brings the work back.)

How soon is not what this test checks (tests/submissions/test_worker.py holds the 30 s
recovery to its deadline): here the claim goes stale 12 s after the killed worker's last
heartbeat, the rescuer's beat sweeps every 5 s, and its one solo process runs the six beat
tasks of each sweep and then the scoring. About 15 s on a quiet machine; on a busy one (the
PostgreSQL pass's two xdist workers, other work beside them) each of those Python steps gets a
fraction of a core and the whole passed a minute, the deadline this test used to have. So the
waits are patient (tests/waiting.py), one for the take-over and one for the scoring, each
failing with the rescuer's log as it is then.
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
        doomed = stack.start_worker("doomed", beat=False, CUPBOARD_JOB_PAUSE="600")
        stack.manage("shell", "-c", SUBMIT.format(run=str(files["run"])))
        wait_until(lambda: stack.query("SELECT status FROM submissions_submission") == [("scoring",)],
                   what=lambda: f"the first worker to claim the submission\n{stack.log('doomed')[-3000:]}")
        os.killpg(doomed.pid, signal.SIGKILL)  # the whole worker, mid-task
        doomed.wait(timeout=60)
        assert stack.query("SELECT status, attempts FROM submissions_submission") == [("scoring", 1)]

        stack.start_worker("rescuer")
        wait_until(lambda: stack.query("SELECT attempts FROM submissions_submission") == [(2,)],
                   what=lambda: f"the rescuer to take the submission over\n{stack.log('rescuer')[-3000:]}")
        wait_until(lambda: stack.query("SELECT status FROM submissions_submission") == [("scored",)],
                   what=lambda: f"the rescued submission to be scored\n{stack.log('rescuer')[-3000:]}")

    assert stack.query("SELECT count(*), max(attempts) FROM submissions_submission") == [(1, 2)]
    expected = expected_scores(files)["subsets"]["sw"]
    stored = dict(stack.query("SELECT metric, value FROM submissions_score"))
    assert stored.keys() == expected.keys()
    assert all(abs(stored[m] - expected[m]) < 1e-12 for m in expected)
    assert stack.query("SELECT count(*) FROM submissions_queryscores") == [(1,)]
    assert stack.query("SELECT count(*) FROM leaderboards_leaderboardrow") == [(1,)]
