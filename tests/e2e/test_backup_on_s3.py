"""`manage.py backup` of a site whose private files live on S3 (moto's server, tests/e2e/s3.py),
then `manage.py restore` into a fresh PostgreSQL database and an empty bucket: every object
comes back byte for byte under its own key, and every export the restored site gives is
byte-identical to the original's (the 12 exports of tests/operations/export_hashes.py).

Every site runs in processes of its own (the world built, backup, restore, the exports asked),
as on the machines an operator backs up and restores on, each on a copy of the migrated
template database (tests/e2e/hosts.py, fresh_database); no local disk holds a private file.
"""
from __future__ import annotations

import json

import pytest

from tests.e2e.hosts import fresh_database
from tests.e2e.s3 import S3Endpoint
from tests.operations.site_world import run, site_env

pytestmark = [pytest.mark.postgres, pytest.mark.slow]

RESTORED_BUCKET = "cupboard-e2e-restored"


def _ok(env: dict, *args: str) -> str:
    done = run(env, *args)
    assert done.returncode == 0, (args, done.stderr[-3000:])
    return done.stdout


def test_a_site_on_s3_comes_back_into_an_empty_bucket_with_every_file_and_export_identical(tmp_path):
    with S3Endpoint(tmp_path) as s3, fresh_database("backup_site", migrated=True) as site_url, \
            fresh_database("backup_restored", migrated=True) as restored_url:
        site = site_env(site_url, tmp_path / "site-var", **s3.env())
        built = json.loads(_ok(site, "-m", "tests.operations.site_world").splitlines()[-1])
        objects = s3.objects()
        assert any(key.startswith("runs/") for key in objects) and any("qrels" in key for key in objects)
        assert any(key.startswith("pools/") for key in objects)
        archive = tmp_path / "site.tar.gz"
        backed_up = _ok(site, "manage.py", "backup", str(archive))
        assert f"files: {len(objects)} (" in backed_up

        s3.client(direct=True).create_bucket(Bucket=RESTORED_BUCKET)
        restored = site_env(restored_url, tmp_path / "restored-var", **{**s3.env(), "CUPBOARD_S3_BUCKET": RESTORED_BUCKET})
        _ok(restored, "manage.py", "restore", str(archive))

        assert s3.objects(RESTORED_BUCKET) == objects
        assert not (tmp_path / "restored-var" / "private").exists()  # every file went to the bucket
        after = _ok(restored, "-m", "tests.operations.export_hashes", built["at"])
        assert json.loads(after.splitlines()[-1]) == built["hashes"]
