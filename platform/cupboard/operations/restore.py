"""Bring back a site from an archive of `backup.py`, onto an empty database and storage.

Every member is checked against the manifest before anything is written: a corrupt,
truncated or foreign archive is refused naming the member, and nothing changes. The rows
are loaded in one transaction (`loaddata` checks every foreign key before it commits), the
sequences are moved past the restored primary keys, then the files are written through the
storage API under their own names.
"""
from __future__ import annotations

import hashlib
import json
import shutil
import tarfile
import tempfile
from pathlib import Path

from django.apps import apps
from django.core.files import File
from django.core.files.storage import Storage, storages
from django.core.management import call_command
from django.core.management.color import no_style
from django.db import connection, transaction

from .backup import (
    DATABASE_MEMBER,
    FILES_PREFIX,
    FORMAT,
    MANIFEST_MEMBER,
    NOT_DUMPED,
    Log,
    applied_migrations,
    stored_names,
)

CHUNK = 1 << 20


class RestoreRefused(Exception):
    """The archive or the target cannot be trusted; nothing was changed."""


def archive_verify(*, archive_path: Path) -> dict:
    """The manifest, once every member's size and SHA-256 match it; RestoreRefused otherwise."""
    found: dict[str, dict] = {}
    manifest_body = None
    try:
        with tarfile.open(archive_path, "r|*") as archive:
            for member in archive:
                source = archive.extractfile(member)
                if source is None:
                    raise RestoreRefused(f"{archive_path}: {member.name} is not a file")
                if member.name == MANIFEST_MEMBER:
                    manifest_body = source.read()
                    continue
                digest, size = hashlib.sha256(), 0
                while chunk := source.read(CHUNK):
                    digest.update(chunk)
                    size += len(chunk)
                found[member.name] = {"size": size, "sha256": digest.hexdigest()}
    except (tarfile.TarError, EOFError, OSError) as error:
        at = f" after {list(found)[-1]}" if found else ""
        raise RestoreRefused(f"{archive_path}: unreadable or truncated{at} ({error}); nothing restored") from error
    if manifest_body is None:
        raise RestoreRefused(f"{archive_path}: no {MANIFEST_MEMBER} (truncated, or not a cupboard backup)")
    manifest = json.loads(manifest_body)
    if manifest.get("format") != FORMAT:
        raise RestoreRefused(f"{archive_path}: backup format {manifest.get('format')!r}, this cupboard reads {FORMAT}")
    _compare(archive_path, manifest["members"], found)
    return manifest


def _compare(archive_path: Path, expected: dict[str, dict], found: dict[str, dict]) -> None:
    for name, want in expected.items():
        got = found.get(name)
        if got is None:
            raise RestoreRefused(f"{archive_path}: {name} is in the manifest but not in the archive")
        if got != want:
            raise RestoreRefused(f"{archive_path}: {name} is corrupt: {got['size']} bytes with SHA-256 "
                                 f"{got['sha256']}, the manifest says {want['size']} bytes, {want['sha256']}")
    for name in found.keys() - expected.keys():
        raise RestoreRefused(f"{archive_path}: {name} is not in the manifest")


def rows_present() -> dict[str, int]:
    """{model label: rows} of every model the archive restores that has rows here."""
    present = {}
    for model in apps.get_models():
        if model._meta.app_label in NOT_DUMPED or model._meta.label_lower in NOT_DUMPED:
            continue
        count = model._base_manager.count()
        if count:
            present[model._meta.label] = count
    return present


def _check_target(*, manifest: dict, storage: Storage, force: bool) -> None:
    here = applied_migrations()
    if here != manifest["migrations"]:
        differ = sorted(app for app in here.keys() | manifest["migrations"].keys()
                        if here.get(app) != manifest["migrations"].get(app))
        raise RestoreRefused(f"the archive was made at other migrations than this database's (apps {', '.join(differ)}):"
                             f" run cupboard {manifest['cupboard_version']}'s migrations, then restore")
    if force:
        return
    present = rows_present()
    if present:
        listed = ", ".join(f"{label} ({count})" for label, count in sorted(present.items())[:5])
        raise RestoreRefused(f"the database is not empty: {listed}{', ...' if len(present) > 5 else ''}. "
                             "Restore onto a new, migrated database, or pass --force to ERASE every row first")
    existing = next(stored_names(storage), None)
    if existing is not None:
        raise RestoreRefused(f"the private storage is not empty (it holds {existing}). Restore into an empty "
                             "storage, or pass --force to DELETE every stored file first")


def _erase(storage: Storage, log: Log) -> None:
    """--force: every row and every stored file gone, the schema kept."""
    call_command("flush", interactive=False, verbosity=0)
    names = list(stored_names(storage))
    for name in names:
        storage.delete(name)
    log(f"--force: every row and {len(names)} stored file(s) deleted")


def site_restore(*, archive_path: Path, force: bool = False, log: Log = print) -> dict:
    """Verify the archive, then load its rows and files; return its manifest."""
    storage = storages["private"]
    log(f"archive: checking every member of {archive_path}")
    manifest = archive_verify(archive_path=archive_path)
    log(f"archive: {len(manifest['members'])} members match the manifest (cupboard {manifest['cupboard_version']})")
    _check_target(manifest=manifest, storage=storage, force=force)
    if force:
        _erase(storage, log)
    with tempfile.TemporaryDirectory(prefix="cupboard-restore-") as scratch, \
            tarfile.open(archive_path, "r|*") as archive:
        for member in archive:
            source = archive.extractfile(member)
            if member.name == DATABASE_MEMBER:
                _load_rows(source, Path(scratch), log)
            elif member.name.startswith(FILES_PREFIX):
                _write_file(storage, member.name.removeprefix(FILES_PREFIX), source, member.size)
    log(f"files: {sum(name.startswith(FILES_PREFIX) for name in manifest['members'])} written")
    return manifest


def _load_rows(source, scratch: Path, log: Log) -> None:
    dump = scratch / DATABASE_MEMBER  # loaddata knows the format by the name's suffix
    with dump.open("wb") as target:
        shutil.copyfileobj(source, target, CHUNK)
    with transaction.atomic():
        call_command("loaddata", str(dump), verbosity=0)
        _reset_sequences()
    log("database: every row loaded, sequences reset")


def _reset_sequences() -> None:
    """Move each table's id sequence past the restored ids (PostgreSQL; SQLite needs nothing)."""
    statements = connection.ops.sequence_reset_sql(no_style(), apps.get_models())
    with connection.cursor() as cursor:
        for statement in statements:
            cursor.execute(statement)


def _write_file(storage: Storage, name: str, source, size: int) -> None:
    content = File(source, name=name)
    content.size = size  # else File guesses it from a path of that name on this disk
    saved = storage.save(name, content)
    if saved != name:  # the storage renamed it: something was there after all
        raise RestoreRefused(f"files: {name} was stored as {saved}; restore into an empty storage")
