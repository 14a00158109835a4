"""A cupboard site spread over "hosts" that share no disk: the web process (gunicorn) and two
Celery workers, each with its own CUPBOARD_VAR_DIR and TMPDIR, sharing only PostgreSQL, the
broker and an S3 bucket (tests/e2e/s3.py). Used by the tests of storage on other machines.

The database is a fresh one beside DATABASE_URL's (`<name>_hosts_<pid>`), dropped at the end.
"""
from __future__ import annotations

import os
import shutil
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlparse, urlunparse

import psycopg
import pytest

from evaluator import synthetic
from tests.celery_worker import rabbitmq_alone
from tests.e2e.s3 import S3Endpoint
from tests.e2e.stack import Stack, api_upload, make_participant, prepared_stack
from tests.e2e.test_broker_outage import RedisServer
from tests.migrated import postgres_template

RABBITMQ = "amqp://guest:guest@127.0.0.1:5672//"
PRODUCTION = {"CUPBOARD_DEBUG": "false", "CUPBOARD_SSL_REDIRECT": "false", "CUPBOARD_SECURE_COOKIES": "false"}

# A session cookie for a user, as a login would leave it (the pages behind login, without a form).
SESSION = """
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
from django.contrib.auth.models import User
from django.contrib.sessions.backends.db import SessionStore

user = User.objects.get(username={username!r})
session = SessionStore()
session[SESSION_KEY], session[BACKEND_SESSION_KEY] = str(user.pk), "django.contrib.auth.backends.ModelBackend"
session[HASH_SESSION_KEY] = user.get_session_auth_hash()
session.create()
print(session.session_key)
"""


@contextmanager
def fresh_database(suffix: str = "hosts", *, migrated: bool = False):
    """A new database on DATABASE_URL's server, empty or (`migrated`) a copy of the migrated
    template (`migrated_template`); yields its URL, drops it afterwards."""
    base = urlparse(os.environ["DATABASE_URL"])
    name = f"{base.path.lstrip('/') or 'cupboard'}_{suffix}_{os.getpid()}"  # xdist workers side by side
    admin = urlunparse(base._replace(path="/postgres"))
    with psycopg.connect(admin, autocommit=True) as connection:
        connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        if migrated:
            with migrated_template() as template:
                connection.execute(f'CREATE DATABASE "{name}" TEMPLATE "{template}"')
        else:
            connection.execute(f'CREATE DATABASE "{name}"')
    try:
        yield urlunparse(base._replace(path=f"/{name}"))
    finally:
        with psycopg.connect(admin, autocommit=True) as connection:
            connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@contextmanager
def migrated_template() -> Iterator[str]:
    """The name of the migrated template database every PostgreSQL test database is copied from
    (tests/migrated.py, kept on the server until a migration changes), held under its lock while
    it is copied; made here by `manage.py migrate` where no test has made it yet. Each migration
    run again cost the storage and backup tests seconds of CPU; a copy (CREATE DATABASE ... TEMPLATE)
    costs little."""
    base = urlparse(os.environ["DATABASE_URL"])
    name = postgres_template(base.path.lstrip("/") or "cupboard")
    admin = urlunparse(base._replace(path="/postgres"))
    with psycopg.connect(admin, autocommit=True) as connection:
        connection.execute("SELECT pg_advisory_lock(hashtext(%s))", [name])
        try:
            if not connection.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone():
                connection.execute(f'CREATE DATABASE "{name}"')
                var = Path(os.environ["CUPBOARD_VAR_DIR"])
                Stack(var, DATABASE_URL=urlunparse(base._replace(path=f"/{name}"))).manage("migrate", "--noinput")
            yield name
        finally:
            connection.execute("SELECT pg_advisory_unlock(hashtext(%s))", [name])


def host_env(folder: Path, host: str) -> dict[str, str]:
    """The var dir and temp dir of one host."""
    var = folder / "hosts" / host
    (var / "tmp").mkdir(parents=True, exist_ok=True)
    return {"CUPBOARD_VAR_DIR": str(var), "TMPDIR": str(var / "tmp")}


@dataclass
class SpreadSite:
    """A spread site while it runs: its stack, the bucket, the database and a participant's API token."""
    stack: Stack
    s3: S3Endpoint
    database_url: str
    token: str

    def start_workers(self, **env: str) -> None:
        """worker-a (with the beat) and worker-b, each on its own disk; `env` added to both's."""
        self.stack.start_worker("worker-a", **host_env(self.stack.folder, "worker-a"), **env)
        self.stack.start_worker("worker-b", beat=False, **host_env(self.stack.folder, "worker-b"), **env)

    def upload(self, runs: list[Path]) -> list[int]:
        """Each run uploaded by the participant as one submission, each accepted (201); their ids."""
        pks = []
        for run in runs:
            status, answer = api_upload(self.stack, self.token, run, method=run.stem)
            assert status == 201, answer
            pks.append(answer["id"])
        return pks

    def session(self, username: str = "cli-user") -> str:
        """A session cookie of `username`, as a login would leave it."""
        return self.stack.manage("shell", "-c", SESSION.format(username=username)).split()[-1]


@contextmanager
def spread_site(folder: Path, broker: str = "redis", *, workers: bool = True) -> Iterator[SpreadSite]:
    """The bucket, a fresh database, a broker of the test's own and a migrated stack holding the
    E2E Cup, manage.py as its own host; gunicorn on the web host, both workers unless `workers`
    is False (a test starts them later with `start_workers`), a participant in a team."""
    with S3Endpoint(folder) as s3, fresh_database(migrated=True) as database_url, \
            own_broker(broker, folder) as broker_url:
        shared = {**s3.env(), "DATABASE_URL": database_url, "CELERY_BROKER_URL": broker_url,
                  "SECRET_KEY": "hosts-test-only", **host_env(folder, "manage")}
        stack, _ = prepared_stack(folder, migrated=True, **shared)
        with stack:
            stack.start_gunicorn(**PRODUCTION, **host_env(folder, "web"))
            site = SpreadSite(stack, s3, database_url, make_participant(stack))
            if workers:
                site.start_workers()
            yield site


def query(database_url: str, sql: str, *params) -> list[tuple]:
    with psycopg.connect(database_url) as connection:
        return connection.execute(sql, params).fetchall()


def get(url: str, session: str = "") -> tuple[int, bytes]:
    request = urllib.request.Request(url, headers={"Cookie": f"sessionid={session}"} if session else {})
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def files_on_hosts(folder: Path) -> dict[str, bytes]:
    """Every file under every host's var dir (its temp dir included), by path relative to hosts/."""
    root = folder / "hosts"
    return {str(path.relative_to(root)): path.read_bytes() for path in sorted(root.rglob("*")) if path.is_file()}


def run_bytes_on_hosts(folder: Path, runs: list[bytes]) -> list[str]:
    """Files on any host that hold a run's bytes (a line of it), or gzip data, or anything left in a temp dir."""
    found, lines = [], [run.splitlines()[5] for run in runs]
    for name, data in files_on_hosts(folder).items():
        if name.split("/")[1] == "tmp" or data[:2] == b"\x1f\x8b" or any(line in data for line in lines):
            found.append(name)
    return found


def runs(folder, count: int) -> list:
    return [synthetic.make_run(folder / f"run.r{i}.sw.txt", language="sw", count=30, tag=f"r{i}",
                               found=0.5 + 0.1 * i)
            for i in range(count)]


def statuses(database_url: str) -> list[str]:
    return [status for (status,) in query(database_url, "SELECT status FROM submissions_submission ORDER BY id")]


def logs(stack) -> str:
    return "\n".join(f"--- {name}\n{stack.log(name)[-2000:]}" for name in ("server", "worker-a", "worker-b"))


@contextmanager
def own_broker(kind: str, folder: Path):
    """The broker URL of a test: a redis-server of its own (on a free port, so tests running side
    by side never take each other's messages), or the machine's RabbitMQ (on AMQP_URL's vhost when
    it is set), held for this test alone (tests/celery_worker.py, `rabbitmq_alone`)."""
    if kind == "rabbitmq":
        # its own vhost where several people test on one machine; one test at a time on it
        with rabbitmq_alone(os.environ.get("AMQP_URL") or RABBITMQ) as url:
            yield url
        return
    if not shutil.which("redis-server"):
        pytest.skip("no redis-server binary")
    server = RedisServer(folder)
    server.start()
    try:
        yield f"redis://127.0.0.1:{server.port}/0"
    finally:
        server.stop()
