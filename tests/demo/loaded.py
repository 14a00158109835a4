"""The demo of a fresh clone (samples and synthetic data), loaded once per pytest run as `make demo`
loads it (committed, every commit's follow-ups run, for the address it is served at) and copied
into the test database of each test that reads it: its loading tests, its final state, its
boards in the browser. Each of them loaded it whole, the largest CPU cost of the SQLite pass.

The first process of the run that asks loads it into its own (empty) test database, under a lock,
and keeps a copy of that database beside the files it wrote: the run's CUPBOARD_VAR_DIR
(tests/testenv.py), which the xdist workers share with their private storage. On another database
than SQLite's in memory, each test loads its own."""
from __future__ import annotations

import fcntl
import json
import os
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from django.conf import settings
from django.db import connection
from django.test import override_settings
from django.utils import timezone

from cupboard.demo.services import demo_load
from tests.migrated import sqlite_restore, sqlite_save, sqlite_template

# The address the demo is served at (`PORT=8123 make demo`): its archive and mails name it.
SERVED_AT = "http://127.0.0.1:8123"


@dataclass(frozen=True)
class LoadedDemo:
    slugs: list[str]  # what demo_load returned: the competitions it loaded
    lines: list[str]  # what it logged
    at: datetime  # when its load returned: the dry run reveals its surprise languages ten minutes later


def loaded_demo() -> LoadedDemo:
    """The session's database filled with the loaded demo; call it outside any transaction (a
    TestCase's setUpClass before its own, or a test whose transactions are real). `empty_database`
    undoes it where no flush does."""
    if not _copies():
        return _load()
    folder = Path(settings.VAR_DIR) / "loaded-demo"
    folder.mkdir(exist_ok=True)
    kept, about = folder / "demo.sqlite3", folder / "demo.json"
    with open(folder / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not kept.exists():
            demo = _load()
            about.write_text(json.dumps({"slugs": demo.slugs, "lines": demo.lines, "at": demo.at.isoformat()}))
            partial = kept.with_suffix(f".{os.getpid()}")
            sqlite_save(connection, partial)
            partial.rename(kept)
            return demo
    sqlite_restore(connection, kept)
    read = json.loads(about.read_text())
    return LoadedDemo(read["slugs"], read["lines"], datetime.fromisoformat(read["at"]))


def empty_database() -> None:
    """The session's database back to the migrated template, as it was before `loaded_demo`."""
    if _copies():
        sqlite_restore(connection, sqlite_template())


def _copies() -> bool:
    connection.ensure_connection()
    return connection.vendor == "sqlite" and connection.is_in_memory_db()


def _load() -> LoadedDemo:
    lines: list[str] = []
    with override_settings(SITE_URL=SERVED_AT):
        slugs = demo_load(data_dir=None, scale=0.25, per_team=1, log=lines.append)
    return LoadedDemo(slugs, lines, timezone.now())
