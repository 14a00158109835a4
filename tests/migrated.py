"""Each pytest process's SQLite test database is a copy of one migrated database, kept in the
checkout's var/ until a migration changes, instead of running every migration again.

Migrating was the first database test's set-up in every xdist worker of every run (Django
renders each migration's model states: a few seconds of CPU per process), which `--durations`
blamed on whatever test came first (docs/development.md). The copy is what `migrate` made: the
template is written by Django's own `create_test_db`, after `migrate` and its post_migrate
signals (content types, permissions), keyed on the content of every installed app's migration
files and the Django and SQLite versions. PostgreSQL test databases are migrated as before."""
import fcntl
import hashlib
import os
import sqlite3
from contextlib import closing
from pathlib import Path

from django.db.backends.sqlite3.creation import DatabaseCreation

FOLDER = Path(__file__).resolve().parents[1] / "var" / "test-databases"
_create_test_db = DatabaseCreation.create_test_db


def migrations_key() -> str:
    """Changes whenever `migrate` could build another database: any migration file of any installed app."""
    import django
    from django.apps import apps

    digest = hashlib.sha256(f"{django.__version__} {sqlite3.sqlite_version}".encode())
    for config in sorted(apps.get_app_configs(), key=lambda config: config.label):
        for path in sorted((Path(config.path) / "migrations").glob("*.py")):
            digest.update(f"{config.label}/{path.name}".encode() + path.read_bytes())
    return digest.hexdigest()[:16]


def create_test_db(self, verbosity=1, autoclobber=False, serialize=True, keepdb=False):
    """Django's `create_test_db` for an in-memory SQLite test database, filled from the template
    (made by the first process that needs it, under a lock) rather than by `migrate`."""
    from django.conf import settings
    from django.core.management import call_command

    name = self._get_test_db_name()
    if not self.is_in_memory_db(name) or keepdb:
        return _create_test_db(self, verbosity, autoclobber, serialize, keepdb)
    FOLDER.mkdir(parents=True, exist_ok=True)
    template = FOLDER / f"migrated-{migrations_key()}.sqlite3"
    with open(FOLDER / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not template.exists():
            name = _create_test_db(self, verbosity, autoclobber, serialize, keepdb)
            for old in FOLDER.glob("migrated-*.sqlite3"):
                old.unlink()
            partial = template.with_suffix(f".{os.getpid()}")
            with closing(sqlite3.connect(partial)) as copy:
                self.connection.connection.backup(copy)
            partial.rename(template)
            return name
    self._create_test_db(verbosity, autoclobber, keepdb)
    self.connection.close()
    settings.DATABASES[self.connection.alias]["NAME"] = name
    self.connection.settings_dict["NAME"] = name
    self.connection.ensure_connection()
    with closing(sqlite3.connect(template)) as source:
        source.backup(self.connection.connection)
    if serialize:
        self.connection._test_serialized_contents = self.serialize_db_to_string()
    call_command("createcachetable", database=self.connection.alias)
    return name


DatabaseCreation.create_test_db = create_test_db
