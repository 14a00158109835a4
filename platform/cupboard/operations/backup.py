"""One archive of a running site: its rows and every stored file, with a manifest of SHA-256s.

The archive is a tar file (gzipped when its name ends in .gz) holding

    database.jsonl     every row, one a line, model by model: what Django's `dumpdata` writes, in JSON Lines
                       (every microsecond kept, foreign keys to content types by natural key,
                       every primary key), read in ONE snapshot
    files/<name>       every file of storages["private"] (run files, topics, qrels, pool
                       exports, ...), read through the storage API, local disk or S3 alike
    manifest.json      last: size and SHA-256 of every member above, the archive's format,
                       cupboard's version and the applied migrations, so `restore` can refuse
                       what it cannot trust

Format 2 is this one; format 1 (older cupboards) held `database.json`, one JSON
document, which `restore` still reads (whole, in memory).

Why dumpdata and not pg_dump: the archive restores with cupboard's own command onto any
database Django runs on (SQLite for a look at home, PostgreSQL of another major version), and
the restore checks every foreign key before it commits. On PostgreSQL the dump runs inside one
REPEATABLE READ, READ ONLY transaction: rows that arrive while it reads are left out
together, so a leaderboard row never outlives its submission in the archive.

Nothing is held in memory whole: each model's rows are read through a cursor CURSOR_ROWS at a
time (`dumpdata` fetches 2,000, too many rows of per-query values to hold at once) and written as
they come to a temporary file, then every member is copied into the tar in chunks, hashed as
it passes (docs/benchmarks.md "Backup and restore": memory stays flat as the database grows).
"""
from __future__ import annotations

import hashlib
import io
import json
import os
import tarfile
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from importlib.metadata import version
from pathlib import Path

from django.apps import apps
from django.core import serializers
from django.core.files.storage import Storage, storages
from django.db import DEFAULT_DB_ALIAS, connection, router, transaction
from django.db.migrations.recorder import MigrationRecorder

FORMAT = 2
DATABASE_MEMBER = "database.jsonl"
MANIFEST_MEMBER = "manifest.json"
FILES_PREFIX = "files/"
# Rebuilt by `migrate` on every database with their own primary keys; rows point at them by natural key.
# Sessions are live log-ins: whoever read an archive holding them would act as every logged-in
# user (an admin's session key as a cookie opens /admin/), so a restored site asks people to log in.
# Page changes (competitions/page_cache.py) only mark cached pages stale: a restored site's cache
# starts empty, and its restore writes marks of its own (m2m signals) that a dumped copy would collide with.
NOT_DUMPED = ["contenttypes", "auth.permission", "sessions", "competitions.pagechange"]

EXACT_JSON = "cupboard-exact-jsonl"  # JSON Lines that keep microseconds (exact_json.py); read as "jsonl"
serializers.register_serializer(EXACT_JSON, "cupboard.operations.exact_json")

# Rows fetched at a time: a QueryScores row (per-query values) may be 100 KB and more.
CURSOR_ROWS = 100

Log = Callable[[str], None]


class HashingReader:
    """A file object that hashes and counts what is read through it (tarfile reads in chunks)."""

    def __init__(self, raw):
        self.raw, self.sha256, self.size = raw, hashlib.sha256(), 0

    def read(self, size: int = -1) -> bytes:
        chunk = self.raw.read(size)
        self.sha256.update(chunk)
        self.size += len(chunk)
        return chunk


@dataclass
class Manifest:
    created_at: float
    database: str
    migrations: dict[str, list[str]]
    members: dict[str, dict] = field(default_factory=dict)  # name -> {"size", "sha256"}
    format: int = FORMAT
    cupboard_version: str = field(default_factory=lambda: version("cupboard"))

    def as_json(self) -> bytes:
        return json.dumps(vars(self), indent=1, sort_keys=True).encode()


def applied_migrations() -> dict[str, list[str]]:
    """{app label: sorted names} of the migrations applied to the default database."""
    applied: dict[str, list[str]] = {}
    for app, name in sorted(MigrationRecorder(connection).applied_migrations()):
        applied.setdefault(app, []).append(name)
    return applied


def stored_names(storage: Storage, folder: str = "") -> Iterator[str]:
    """Every file name in `storage`, walked through its own listdir (S3 has no disk to walk)."""
    try:
        folders, files = storage.listdir(folder)
    except FileNotFoundError:  # a local storage nothing was ever saved to has no folder yet
        return
    for name in sorted(files):
        yield f"{folder}/{name}" if folder else name
    for sub in sorted(folders):
        yield from stored_names(storage, f"{folder}/{sub}" if folder else sub)


def _add(archive: tarfile.TarFile, manifest: Manifest, name: str, raw, size: int) -> None:
    info = tarfile.TarInfo(name)
    info.size, info.mtime, info.mode = size, int(manifest.created_at), 0o600
    reader = HashingReader(raw)
    archive.addfile(info, reader)  # tarfile raises if the file gives fewer bytes than `size`
    manifest.members[name] = {"size": reader.size, "sha256": reader.sha256.hexdigest()}


def _snapshot_rows(path: Path) -> Manifest:
    """Dump every row to `path` in one transaction; the manifest's migration state is read in it too."""
    with transaction.atomic():
        if connection.vendor == "postgresql" and len(connection.atomic_blocks) == 1:
            # The transaction's first statement: every later read sees the same moment. (Inside a
            # caller's transaction, a test's, its snapshot is already fixed and SET would fail.)
            with connection.cursor() as cursor:
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        manifest = Manifest(created_at=time.time(), database=connection.vendor, migrations=applied_migrations())
        with path.open("w", encoding="utf-8") as stream:
            for model in dumped_models():
                rows = model._base_manager.order_by(model._meta.pk.name).iterator(chunk_size=CURSOR_ROWS)
                serializers.serialize(EXACT_JSON, rows, stream=stream, use_natural_foreign_keys=True)
    return manifest


def dumped_models() -> list:
    """The models `dumpdata` would dump, in its order (a row after those it names by natural key)."""
    chosen = {}
    for config in apps.get_app_configs():
        if config.label in NOT_DUMPED:
            continue
        models = [model for model in config.get_models() if model._meta.label_lower not in NOT_DUMPED
                  and not model._meta.proxy and router.allow_migrate_model(DEFAULT_DB_ALIAS, model)]
        if models:
            chosen[config] = models
    return serializers.sort_dependencies(chosen.items(), allow_cycles=True)


def site_backup(*, archive_path: Path, log: Log = print) -> Manifest:
    """Write the archive of the database and the private storage to `archive_path`."""
    storage = storages["private"]
    with tempfile.TemporaryDirectory(prefix="cupboard-backup-") as scratch:
        dump = Path(scratch) / DATABASE_MEMBER
        log("database: reading every row in one snapshot")
        manifest = _snapshot_rows(dump)
        gzipped = archive_path.name.endswith(".gz")
        with _private_file(archive_path) as stream, \
                tarfile.open(fileobj=stream, mode="w:gz") if gzipped else tarfile.open(fileobj=stream, mode="w") as archive:
            with dump.open("rb") as raw:
                _add(archive, manifest, DATABASE_MEMBER, raw, dump.stat().st_size)
            log(f"database: {dump.stat().st_size} bytes")
            _add_files(archive, manifest, storage, log)
            body = manifest.as_json()
            info = tarfile.TarInfo(MANIFEST_MEMBER)
            info.size, info.mtime, info.mode = len(body), int(manifest.created_at), 0o600
            archive.addfile(info, io.BytesIO(body))
    log(f"archive: {archive_path} ({archive_path.stat().st_size} bytes, {len(manifest.members)} members)")
    return manifest


def _private_file(path: Path):
    """`path`, new and readable by its owner alone (0600 whatever the umask): the archive holds
    hidden judgments, every team's runs and password hashes. O_EXCL: never another's file."""
    return os.fdopen(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "wb")


def _add_files(archive: tarfile.TarFile, manifest: Manifest, storage: Storage, log: Log) -> None:
    count = total = 0
    for name in stored_names(storage):
        try:
            raw = storage.open(name, "rb")
        except FileNotFoundError:
            # Deleted since it was listed (run-file retention): its row says it is gone, too.
            log(f"files: {name} was deleted while backing up; left out")
            continue
        with raw:
            size = storage.size(name)
            _add(archive, manifest, FILES_PREFIX + name, raw, size)
        count, total = count + 1, total + size
        if count % 100 == 0:
            log(f"files: {count} ({total} bytes) so far")
    log(f"files: {count} ({total} bytes)")

