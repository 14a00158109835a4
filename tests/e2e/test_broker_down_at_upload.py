"""A commit is a promise: with the broker unreachable when an upload is committed, the
participant still gets 201 and the id, the run files stay, a repeat of the same files gets
that same submission, and once a worker runs the sweeper sends the lost message again and
the submission is scored, without anyone doing anything.

The web server's broker is a Redis URL on a port where nothing listens (a real refused
connection, not a mock); the worker started afterwards uses the stack's filesystem broker.
"""
from __future__ import annotations

import gzip
import time

import pytest

from tests.e2e.stack import api_upload, free_port, make_participant, prepared_stack, wait_until

pytestmark = [pytest.mark.worker, pytest.mark.slow]


def test_an_upload_committed_while_the_broker_is_down_is_kept_and_scored_later(tmp_path):
    stack, files = prepared_stack(tmp_path)
    with stack:
        token = make_participant(stack)
        stack.start_server(CELERY_BROKER_URL=f"redis://127.0.0.1:{free_port()}/0")
        started = time.monotonic()
        status, answer = api_upload(stack, token, files["run"])
        took = time.monotonic() - started
        assert status == 201, (answer, stack.log("server")[-3000:])
        assert answer["status"] == "queued" and took < 10
        assert "will send it again" in stack.log("server")  # the failure is logged, not raised
        stored = list((tmp_path / "private").rglob("run.e2e.sw*"))
        assert len(stored) == 1 and gzip.decompress(stored[0].read_bytes()) == files["run"].read_bytes()

        status, again = api_upload(stack, token, files["run"])
        assert (status, again["url"]) == (200, answer["url"])

        stack.start_worker("rescuer", CUPBOARD_RESEND_AFTER="2", CUPBOARD_SWEEP_INTERVAL="1")
        wait_until(lambda: stack.query("SELECT status FROM submissions_submission") == [("scored",)],
                   what=lambda: f"the sweeper to send the lost message\n{stack.log('rescuer')[-3000:]}")
    assert stack.query("SELECT count(*), max(attempts) FROM submissions_submission") == [(1, 1)]
    assert stack.query("SELECT count(*) FROM leaderboards_leaderboardrow") == [(1,)]
