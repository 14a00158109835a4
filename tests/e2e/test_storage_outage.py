"""The S3 endpoint goes down while runs wait to be scored and others are uploaded, on the hosts of
tests/e2e/hosts.py (gunicorn and two workers, no shared disk): uploads and downloads answer 503
with Retry-After and change nothing (no row, no object); the endpoint stays down until a worker
has met the outage with each run accepted before, and those runs are scored once it is back,
without spending their scoring attempts on it; an upload refused during it is accepted afterwards.

The workers send a waiting run's message again after 2 s, swept every second (not 30 s and 5 s):
what comes back after an outage is the same, the test no longer waits half a minute for it.
"""
from __future__ import annotations

import re

import pytest

from tests.e2e.hosts import get, logs, query, run_bytes_on_hosts, runs, spread_site, statuses
from tests.e2e.stack import api_upload, wait_until

pytestmark = [pytest.mark.worker, pytest.mark.postgres, pytest.mark.slow]

RESEND = {"CUPBOARD_RESEND_AFTER": "2", "CUPBOARD_SWEEP_INTERVAL": "1"}


def met_the_outage(stack) -> set[int]:
    """The submissions a worker tried to score and put back for the outage (scoring.py logs each)."""
    return {int(pk) for pk in re.findall(r"scoring submission (\d+) waits out an outage",
                                          stack.log("worker-a") + stack.log("worker-b"))}


def test_a_storage_outage_answers_503_and_loses_nothing(tmp_path):
    with spread_site(tmp_path, workers=False) as site:
        stack, s3, database_url, token = site.stack, site.s3, site.database_url, site.token
        before, during = runs(tmp_path, 3)[:2], runs(tmp_path, 3)[2]
        pks = site.upload(before)  # accepted and stored; no worker runs yet, so they wait in the queue
        objects = s3.objects()
        session = site.session()

        s3.down()
        site.start_workers(**RESEND)

        status, answer = api_upload(stack, token, during, method=during.stem)
        assert status == 503 and answer["errors"][0]["code"] == "unavailable", answer
        status, _ = get(f"{stack.url}/submissions/{pks[0]}/files/sw/", session)
        assert status == 503  # not a download cut short
        assert query(database_url, "SELECT count(*) FROM submissions_submission") == [(2,)]
        assert s3.objects() == objects
        assert set(statuses(database_url)) <= {"queued", "scoring"}, statuses(database_url)

        wait_until(lambda: met_the_outage(stack) == set(pks),
                   what=lambda: f"a worker to meet the outage with each waiting run\n{logs(stack)}")
        assert set(statuses(database_url)) <= {"queued", "scoring"}, statuses(database_url)
        s3.up()
        wait_until(lambda: statuses(database_url) == ["scored"] * 2,
                   what=lambda: f"the runs accepted before the outage to be scored\n{logs(stack)}")
        assert query(database_url, "SELECT max(attempts) FROM submissions_submission") == [(1,)]

        status, answer = api_upload(stack, token, during, method=during.stem)
        assert status == 201, answer
        wait_until(lambda: statuses(database_url) == ["scored"] * 3,
                   what=lambda: f"the run refused during the outage, sent again\n{logs(stack)}")
        assert "Internal Server Error" not in stack.log("server")

    assert run_bytes_on_hosts(tmp_path, [run.read_bytes() for run in [*before, during]]) == []
