"""Storage on another machine, for real: gunicorn and two Celery workers, each on its own var dir
and temp dir (no shared disk, as on separate hosts), share only PostgreSQL, the broker (Redis, or
RabbitMQ) and an S3 bucket served by moto over HTTP (tests/e2e/s3.py, tests/e2e/hosts.py).

Uploads are scored by whichever worker takes them, run files come back through the web byte for
byte, a pool export is built by a worker and downloaded, the second engine verifies the scores,
the reveal freezes a snapshot, retention purges an expired run from the bucket; and afterwards no
host's disk holds a run's bytes, and every temp dir is empty.
"""
from __future__ import annotations

import io
import zipfile

import pytest

from tests.e2e.hosts import get, logs, query, run_bytes_on_hosts, runs, spread_site, statuses
from tests.e2e.stack import wait_until
from tests.e2e.test_verification_by_worker import ASK, REVEAL

pytestmark = [pytest.mark.worker, pytest.mark.postgres, pytest.mark.slow]


POOL = """
from django.contrib.auth.models import User
from cupboard.competitions.models import Phase
from cupboard.judging.pools import pool_export_create

phase = Phase.objects.get(competition__slug="cup", slug="dev")
print(pool_export_create(phase=phase, actor=User.objects.get(username="organizer"), selection="top", top_teams=5).number)
"""

# Submission {pk} failed long ago (and ranks nowhere): its files are past retention; the worker purges them.
EXPIRE = """
from datetime import timedelta
from django.utils import timezone
from cupboard.submissions.models import Submission
from cupboard.submissions.tasks import purge_run_files

long_ago = timezone.now() - timedelta(days=30)
submission = Submission.objects.get(pk={pk})
submission.phase.leaderboard_rows.filter(submission=submission).delete()
Submission.objects.filter(pk={pk}).update(status="failed", created_at=long_ago, claimed_at=long_ago,
                                          heartbeat_at=long_ago, queued_at=long_ago)
purge_run_files.delay()
"""


@pytest.mark.parametrize("broker", ["redis", "rabbitmq"])
def test_web_and_two_workers_share_only_the_database_the_broker_and_the_bucket(tmp_path, broker):
    with spread_site(tmp_path, broker) as site:
        stack, s3, database_url = site.stack, site.s3, site.database_url
        uploads = runs(tmp_path, 3)
        pks = site.upload(uploads)
        wait_until(lambda: statuses(database_url) == ["scored"] * 3, what=lambda: f"3 runs scored\n{logs(stack)}")
        assert "succeeded" in stack.log("worker-a") + stack.log("worker-b")

        session = site.session()
        for pk, run in zip(pks, uploads, strict=True):
            assert get(f"{stack.url}/submissions/{pk}/files/sw/", session) == (200, run.read_bytes())

        number = stack.manage("shell", "-c", POOL).split()[-1]
        wait_until(lambda: query(database_url, "SELECT status FROM judging_poolexport") == [("done",)],
                   what=lambda: f"the pool export\n{logs(stack)}")
        organizer = site.session("organizer")
        status, body = get(f"{stack.url}/c/cup/manage/dev/pool/{number}.zip", organizer)
        assert status == 200
        [member] = zipfile.ZipFile(io.BytesIO(body)).namelist()
        assert zipfile.ZipFile(io.BytesIO(body)).read(member).count(b"\n") > 30

        stack.manage("shell", "-c", ASK)
        wait_until(lambda: query(database_url, "SELECT status FROM submissions_verification") == [("passed",)],
                   what=lambda: f"the second engine's verification\n{logs(stack)}")

        stack.manage("shell", "-c", REVEAL)
        wait_until(lambda: query(database_url, "SELECT csv_sha256 FROM leaderboards_frozensnapshot"),
                   what=lambda: f"the frozen snapshot at the reveal\n{logs(stack)}")

        stored = s3.objects()
        expired = query(database_url, "SELECT file FROM submissions_runfile WHERE submission_id = %s", pks[2])[0][0]
        assert expired in stored
        stack.manage("shell", "-c", EXPIRE.format(pk=pks[2]))
        wait_until(lambda: expired not in s3.objects(), what=lambda: f"the purge\n{logs(stack)}")
        assert get(f"{stack.url}/submissions/{pks[2]}/files/sw/", session)[0] == 410
        assert get(f"{stack.url}/submissions/{pks[0]}/files/sw/", session) == (200, uploads[0].read_bytes())

    assert run_bytes_on_hosts(tmp_path, [run.read_bytes() for run in uploads]) == []
