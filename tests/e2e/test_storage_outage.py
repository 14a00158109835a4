"""The S3 endpoint goes down for ~15 s while runs wait to be scored and others are uploaded, on
the hosts of tests/e2e/hosts.py (gunicorn and two workers, no shared disk): uploads and downloads
answer 503 with Retry-After and change nothing (no row, no object); the runs accepted before are
scored once the endpoint is back, without spending their scoring attempts on the outage; an upload
refused during it is accepted afterwards.
"""
from __future__ import annotations

import time

import pytest

from tests.e2e.hosts import get, logs, query, run_bytes_on_hosts, runs, spread_site, statuses
from tests.e2e.stack import api_upload, wait_until

pytestmark = [pytest.mark.worker, pytest.mark.postgres, pytest.mark.slow]

OUTAGE = 15  # seconds


def test_a_storage_outage_answers_503_and_loses_nothing(tmp_path):
    with spread_site(tmp_path, workers=False) as site:
        stack, s3, database_url, token = site.stack, site.s3, site.database_url, site.token
        before, during = runs(tmp_path, 3)[:2], runs(tmp_path, 3)[2]
        pks = site.upload(before)  # accepted and stored; no worker runs yet, so they wait in the queue
        objects = s3.objects()
        session = site.session()

        s3.down()
        went_down = time.monotonic()
        site.start_workers()

        status, answer = api_upload(stack, token, during, method=during.stem)
        assert status == 503 and answer["errors"][0]["code"] == "unavailable", answer
        status, _ = get(f"{stack.url}/submissions/{pks[0]}/files/sw/", session)
        assert status == 503  # not a download cut short
        assert query(database_url, "SELECT count(*) FROM submissions_submission") == [(2,)]
        assert s3.objects() == objects
        assert set(statuses(database_url)) <= {"queued", "scoring"}, statuses(database_url)

        time.sleep(max(0.0, OUTAGE - (time.monotonic() - went_down)))
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
