"""Each pytest process's SQLite test database is a copy of one migrated database, kept in the
checkout's var/ until a migration changes, instead of running every migration again.

Migrating was the first database test's set-up in every xdist worker of every run (Django
renders each migration's model states: a few seconds of CPU per process), which `--durations`
blamed on whatever test came first (docs/development.md). The copy is what `migrate` made: the
template is written by Django's own `create_test_db`, after `migrate` and its post_migrate
signals (content types, permissions), keyed on the content of every installed app's migration
files and the Django and SQLite versions. On PostgreSQL the same: the first process makes a
template database (`test_<name>_migrated_<key>`, under an advisory lock, kept on the server) and
every test database is created from it (`CREATE DATABASE ... TEMPLATE`). The end-to-end
stacks' SQLite files are copies of the same template (`sqlite_template`, tests/e2e/stack.py)."""
import fcntl
import hashlib
import os
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from contextlib import closing, contextmanager
from pathlib import Path

from django.db.backends.postgresql.creation import DatabaseCreation as PostgresCreation
from django.db.backends.sqlite3.creation import DatabaseCreation

ROOT = Path(__file__).resolve().parents[1]
FOLDER = ROOT / "var" / "test-databases"
_create_test_db = DatabaseCreation.create_test_db
_create_postgres_test_db = PostgresCreation.create_test_db


def migrations_key() -> str:
    """Changes whenever `migrate` could build another database: any migration file of any installed app."""
    import django
    from django.apps import apps

    digest = hashlib.sha256(f"{django.__version__} {sqlite3.sqlite_version}".encode())
    for config in sorted(apps.get_app_configs(), key=lambda config: config.label):
        for path in sorted((Path(config.path) / "migrations").glob("*.py")):
            digest.update(f"{config.label}/{path.name}".encode() + path.read_bytes())
    return digest.hexdigest()[:16]


def postgres_template(name: str) -> str:
    """The migrated template database on the server of the test databases of database `name`
    (DATABASE_URL's), taken under `pg_advisory_lock(hashtext(<it>))` to make or copy; the e2e
    tests' own databases are copied from it too (tests/e2e/hosts.py)."""
    return f"test_{name}_migrated_{migrations_key()}"[:63]


@contextmanager
def _sqlite_template_locked() -> Iterator[tuple[Path, Path]]:
    """(the template's path, a partial file to write a new one to), under the folder's lock: the
    caller makes the template where it does not exist yet, then `_keep` renames the partial file."""
    FOLDER.mkdir(parents=True, exist_ok=True)
    template = FOLDER / f"migrated-{migrations_key()}.sqlite3"
    with open(FOLDER / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield template, template.with_suffix(f".{os.getpid()}")


def _keep(partial: Path, template: Path) -> None:
    """The new template in place of every older one (another key: a migration changed)."""
    for old in FOLDER.glob("migrated-*.sqlite3"):
        old.unlink()
    partial.rename(template)


def sqlite_template() -> Path:
    """The migrated SQLite template every test database is copied from, for a process that copies
    it without a test database of its own (tests/e2e/stack.py: each stack's SQLite file); made by
    `manage.py migrate` where no test has made it yet."""
    with _sqlite_template_locked() as (template, partial):
        if not template.exists():
            partial.unlink(missing_ok=True)
            result = subprocess.run([sys.executable, "manage.py", "migrate", "--noinput"], cwd=ROOT,
                                    env={**os.environ, "DATABASE_URL": f"sqlite:///{partial}"},
                                    capture_output=True, text=True)
            assert result.returncode == 0, f"manage.py migrate failed:\n{result.stdout}\n{result.stderr}"
            _keep(partial, template)
    return template


def sqlite_restore(connection, path: Path) -> None:
    """Every table of `connection`'s SQLite database replaced by those of the database file `path`
    (SQLite's backup), outside any transaction."""
    connection.ensure_connection()
    with closing(sqlite3.connect(path)) as source:
        source.backup(connection.connection)


def sqlite_save(connection, path: Path) -> None:
    """`connection`'s SQLite database written whole to the file `path` (SQLite's backup): the
    reverse of `sqlite_restore`."""
    with closing(sqlite3.connect(path)) as copy:
        connection.connection.backup(copy)


def create_test_db(self, verbosity=1, autoclobber=False, serialize=True, keepdb=False):
    """Django's `create_test_db` for an in-memory SQLite test database, filled from the template
    (made by the first process that needs it, under a lock) rather than by `migrate`."""
    from django.conf import settings
    from django.core.management import call_command

    name = self._get_test_db_name()
    if not self.is_in_memory_db(name) or keepdb:
        return _create_test_db(self, verbosity, autoclobber, serialize, keepdb)
    with _sqlite_template_locked() as (template, partial):
        if not template.exists():
            name = _create_test_db(self, verbosity, autoclobber, serialize, keepdb)
            sqlite_save(self.connection, partial)
            _keep(partial, template)
            return name
    self._create_test_db(verbosity, autoclobber, keepdb)
    self.connection.close()
    settings.DATABASES[self.connection.alias]["NAME"] = name
    self.connection.settings_dict["NAME"] = name
    sqlite_restore(self.connection, template)
    if serialize:
        self.connection._test_serialized_contents = self.serialize_db_to_string()
    call_command("createcachetable", database=self.connection.alias)
    return name


def create_postgres_test_db(self, verbosity=1, autoclobber=False, serialize=True, keepdb=False):
    """Django's `create_test_db` on PostgreSQL, the database copied from the template (made by
    migrating the first test database, then copying it) rather than migrated."""
    from django.conf import settings
    from django.core.management import call_command

    if keepdb:
        return _create_postgres_test_db(self, verbosity, autoclobber, serialize, keepdb)
    name, quote = self._get_test_db_name(), self._quote_name
    template = postgres_template(self.connection.settings_dict["NAME"])
    with self._nodb_cursor() as cursor:
        cursor.execute("SELECT pg_advisory_lock(hashtext(%s))", [template])
        try:
            if not self._database_exists(cursor, template):
                name = _create_postgres_test_db(self, verbosity, autoclobber, serialize, keepdb)
                self.connection.close()
                cursor.execute("SELECT datname FROM pg_database WHERE datname LIKE %s",
                               [template.rsplit("_", 1)[0] + "\\_%"])
                for (old,) in cursor.fetchall():
                    cursor.execute(f"DROP DATABASE IF EXISTS {quote(old)}")
                cursor.execute(f"CREATE DATABASE {quote(template)} TEMPLATE {quote(name)}")
                return name
            cursor.execute(f"DROP DATABASE IF EXISTS {quote(name)}")  # left by a run that was killed
            cursor.execute(f"CREATE DATABASE {quote(name)} TEMPLATE {quote(template)}")
        finally:
            cursor.execute("SELECT pg_advisory_unlock(hashtext(%s))", [template])
    self.connection.close()
    settings.DATABASES[self.connection.alias]["NAME"] = name
    self.connection.settings_dict["NAME"] = name
    if serialize:
        self.connection._test_serialized_contents = self.serialize_db_to_string()
    call_command("createcachetable", database=self.connection.alias)
    self.connection.ensure_connection()
    return name


DatabaseCreation.create_test_db = create_test_db
PostgresCreation.create_test_db = create_postgres_test_db
