"""`manage.py backup` then `manage.py restore` into a second PostgreSQL database and a fresh
storage folder brings back a site whose every export is byte-identical: leaderboards, the
frozen official results, the commitments, the audit log, a phase's runs and its pool. An
archive with one changed byte, or cut short, is refused naming what is wrong, and changes
nothing (the real restore after it finds the database still empty).

The restored site runs in other processes (restore, then the exports asked through Django's
test client), as on the machine an operator restores to, on a copy of the migrated template
database (tests/e2e/hosts.py, fresh_database)."""
import io
import json
import os
import tarfile
from pathlib import Path

import psycopg
import pytest
from django.core.management import call_command
from django.db import connection

from tests.e2e.hosts import fresh_database
from tests.judging.conftest import build_scene
from tests.operations.export_hashes import export_hashes
from tests.operations.site_world import compared_at, run, site_env, world

pytestmark = [pytest.mark.postgres, pytest.mark.slow, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def second_database():
    """A new, migrated PostgreSQL database beside the test's, and its DATABASE_URL; dropped after."""
    with fresh_database("restored", migrated=True) as url:
        yield url


def _tampered(archive: Path, target: Path) -> str:
    """A copy of `archive` with one byte of its first run file changed; that member's name."""
    with tarfile.open(archive) as source, tarfile.open(target, "w:gz") as copy:
        changed = None
        for member in source:
            body = source.extractfile(member).read()
            if changed is None and member.name.startswith("files/runs/"):
                changed, body = member.name, bytes([body[0] ^ 1]) + body[1:]
            copy.addfile(member, io.BytesIO(body))
    assert changed is not None
    return changed


def test_a_restored_site_gives_every_export_byte_identical(second_database, tmp_path):
    at = compared_at(world())
    before = export_hashes(at)
    archive = tmp_path / "site.tar.gz"
    call_command("backup", str(archive), stdout=open(os.devnull, "w"))
    with tarfile.open(archive) as opened:
        manifest = json.load(opened.extractfile("manifest.json"))
    assert "database.jsonl" in manifest["members"] and any("qrels" in name for name in manifest["members"])

    env = site_env(second_database, tmp_path / "restored-var")

    member = _tampered(archive, tmp_path / "tampered.tar.gz")
    refused = run(env, "manage.py", "restore", str(tmp_path / "tampered.tar.gz"))
    assert refused.returncode == 1 and f"{member} is corrupt" in refused.stderr, refused.stderr
    (tmp_path / "cut.tar.gz").write_bytes(archive.read_bytes()[: archive.stat().st_size // 2])
    refused = run(env, "manage.py", "restore", str(tmp_path / "cut.tar.gz"))
    assert refused.returncode == 1 and "truncated" in refused.stderr, refused.stderr

    restored = run(env, "manage.py", "restore", str(archive))
    assert restored.returncode == 0, restored.stderr
    assert "members match the manifest" in restored.stdout
    again = run(env, "manage.py", "restore", str(archive))
    assert again.returncode == 1 and "the database is not empty" in again.stderr, again.stderr

    after = run(env, "-m", "tests.operations.export_hashes", at.isoformat())
    assert after.returncode == 0, after.stderr
    assert json.loads(after.stdout) == before


def test_rows_written_while_it_reads_are_left_out_together(monkeypatch, tmp_path):
    """The dump is one snapshot: a row another connection commits once the snapshot is taken
    (right after the migration state is read, the transaction's first query) is not in it."""
    from cupboard.audit.models import AuditEvent
    from cupboard.operations import backup

    scene = build_scene("test-b")
    settings = connection.settings_dict
    read_migrations = backup.applied_migrations

    def then_another_process_writes():
        applied = read_migrations()
        with psycopg.connect(host=settings["HOST"] or "127.0.0.1", port=settings["PORT"] or 5432,
                             user=settings["USER"], dbname=settings["NAME"], autocommit=True) as other:
            other.execute("INSERT INTO audit_auditevent (created_at, action, summary, details, is_public, competition_id)"
                          " VALUES (now(), 'verified', 'written meanwhile', '{}', false, %s)", [scene.competition.pk])
        return applied

    monkeypatch.setattr(backup, "applied_migrations", then_another_process_writes)
    call_command("backup", str(tmp_path / "site.tar"), stdout=open(os.devnull, "w"))
    with tarfile.open(tmp_path / "site.tar") as opened:
        rows = [json.loads(line) for line in opened.extractfile("database.jsonl")]
    assert AuditEvent.objects.filter(summary="written meanwhile").count() == 1
    dumped = [row for row in rows if row["model"] == "audit.auditevent"]
    assert dumped and not any(row["fields"]["summary"] == "written meanwhile" for row in dumped)
