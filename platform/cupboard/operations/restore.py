"""Bring back a site from an archive of `backup.py`, onto an empty database and storage.

Every member is checked against the manifest before anything is written: a corrupt,
truncated or foreign archive is refused naming the member, and nothing changes. The rows
are loaded in one transaction, as `loaddata` loads a fixture (each row saved raw, every
foreign key checked before the commit), but read one line at a time straight from the
archive: memory stays flat however many rows there are. The sequences are then moved past
the restored primary keys, and the files written through the storage API under their own
names. An archive of format 1 (`database.json`, one JSON document) is still read, whole.
"""
from __future__ import annotations

import hashlib
import io
import json
import tarfile
from collections.abc import Iterator
from pathlib import Path

from django.apps import apps
from django.core import serializers
from django.core.files import File
from django.core.files.storage import Storage, storages
from django.core.management import call_command
from django.core.management.color import no_style
from django.core.serializers.base import DeserializationError
from django.db import DatabaseError, connection, transaction

from .backup import (
    DATABASE_MEMBER,
    FILES_PREFIX,
    MANIFEST_MEMBER,
    NOT_DUMPED,
    Log,
    applied_migrations,
    stored_names,
)

CHUNK = 1 << 20
# {archive format: (its rows member, the deserializer that reads it)}; format 1 is read whole.
ROWS_MEMBERS = {1: ("database.json", "json"), 2: (DATABASE_MEMBER, "jsonl")}


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
    if manifest.get("format") not in ROWS_MEMBERS:
        raise RestoreRefused(f"{archive_path}: backup format {manifest.get('format')!r}, this cupboard reads formats "
                             f"{', '.join(map(str, ROWS_MEMBERS))} (a newer cupboard wrote it: restore with that one)")
    _compare(archive_path, manifest["members"], found)
    rows_member = ROWS_MEMBERS[manifest["format"]][0]
    if next(iter(found), None) != rows_member:  # a --force restore erases the files once the rows are in
        raise RestoreRefused(f"{archive_path}: {rows_member} is not the archive's first member")
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


def _erase_files(storage: Storage, log: Log) -> None:
    """--force, once the rows are in: every stored file gone, so that each is written under its own name."""
    names = list(stored_names(storage))
    for name in names:
        storage.delete(name)
    log(f"--force: {len(names)} stored file(s) deleted")


def site_restore(*, archive_path: Path, force: bool = False, log: Log = print) -> dict:
    """Verify the archive, then load its rows and files; return its manifest."""
    storage = storages["private"]
    log(f"archive: checking every member of {archive_path}")
    manifest = archive_verify(archive_path=archive_path)
    log(f"archive: {len(manifest['members'])} members match the manifest (cupboard {manifest['cupboard_version']})")
    _check_target(manifest=manifest, storage=storage, force=force)
    rows_member, deserializer = ROWS_MEMBERS[manifest["format"]]
    with tarfile.open(archive_path, "r|*") as archive:
        for member in archive:  # the rows come first (archive_verify checked it), then the files
            source = archive.extractfile(member)
            if member.name == rows_member:
                _load_rows(source, rows_member, deserializer, erase=force, log=log)
                if force:
                    _erase_files(storage, log)
            elif member.name.startswith(FILES_PREFIX):
                _write_file(storage, member.name.removeprefix(FILES_PREFIX), source, member.size)
    log(f"files: {sum(name.startswith(FILES_PREFIX) for name in manifest['members'])} written")
    return manifest


def _load_rows(source, name: str, deserializer: str, *, erase: bool, log: Log) -> None:
    """Save every row of the member as `loaddata` does (raw, foreign keys checked at the end), in
    one transaction, after erasing every row first (--force) in the same one: a row that cannot
    be saved is refused naming its line, and the database is left as it was."""
    lines = _Lines(source)
    models: set = set()
    with transaction.atomic():
        if erase:
            call_command("flush", interactive=False, verbosity=0)
            log("--force: every row deleted (undone if a row cannot be restored)")
        with connection.constraint_checks_disabled():
            deferred = []
            try:
                for row in serializers.deserialize(deserializer, lines, handle_forward_references=True):
                    models.add(type(row.object))
                    row.save(force_insert=True)  # the target is empty (or erased): no UPDATE tried first
                    if row.deferred_fields:
                        deferred.append(row)
                    lines.rows += 1
                for row in deferred:
                    row.save_deferred_fields()
            except (DeserializationError, DatabaseError) as error:
                raise RestoreRefused(f"{name} line {lines.number}: {error}; nothing restored") from error
        try:
            connection.check_constraints(table_names=[model._meta.db_table for model in models])
        except DatabaseError as error:
            raise RestoreRefused(f"{name}: a row points at one the archive does not hold ({error}); "
                                 "nothing restored") from error
        _reset_sequences()
    log(f"database: {lines.rows} rows loaded, sequences reset")


class _Lines:
    """The member's lines, counted (format 1's one document is read whole: one "line")."""

    def __init__(self, source):
        self.source, self.number, self.rows = source, 0, 0

    def __iter__(self) -> Iterator[bytes]:
        for line in self.source:
            self.number += 1
            yield line

    def read(self) -> bytes:
        self.number = 1
        return self.source.read()


def _reset_sequences() -> None:
    """Move each table's id sequence past the restored ids (PostgreSQL; SQLite needs nothing)."""
    statements = connection.ops.sequence_reset_sql(no_style(), apps.get_models())
    with connection.cursor() as cursor:
        for statement in statements:
            cursor.execute(statement)


class ForwardReader(io.RawIOBase):
    """A member's bytes read once, front to back. The archive is read as a stream, which cannot
    seek nor say so (tarfile's member raises AttributeError): S3's upload asks `seekable()`."""

    def __init__(self, raw):
        super().__init__()
        self.raw = raw

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        chunk = self.raw.read(len(buffer))
        buffer[:len(chunk)] = chunk
        return len(chunk)


def _write_file(storage: Storage, name: str, source, size: int) -> None:
    content = File(ForwardReader(source), name=name)
    content.size = size  # else File guesses it from a path of that name on this disk
    saved = storage.save(name, content)
    if saved != name:  # the storage renamed it: something was there after all
        raise RestoreRefused(f"files: {name} was stored as {saved}; restore into an empty storage")
