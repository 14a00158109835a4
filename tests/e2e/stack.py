"""A real cupboard stack in subprocesses, for end-to-end tests.

A temp folder is CUPBOARD_VAR_DIR (SQLite file, filesystem broker, private storage); the
database is a copy of the migrated template (tests/migrated.py), filled by `manage.py`
subprocesses; `runserver` and a `celery worker -B` run as they would on a laptop. Nothing of
the pytest process is shared but the code: these tests see what a user would.

    with Stack(tmp_path) as stack:
        stack.migrate()
        stack.start_server(); stack.start_worker()
        ...
Every process started is stopped on exit, whatever happened (SIGTERM, then SIGKILL).
"""
from __future__ import annotations

import os
import signal
import socket
import sqlite3
import subprocess
import sys
from pathlib import Path

from tests.migrated import sqlite_template
from tests.waiting import PATIENCE, wait_until

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def ctrl_c_as_in_a_terminal() -> None:
    """A Popen preexec_fn: the child takes Ctrl-C (SIGINT) as a program started in a terminal does,
    even where this process ignores it (started in a script's background, as `make test` starts its
    PostgreSQL pass, or by nohup): a bash started with SIGINT ignored cannot trap it (POSIX), so a
    script's Ctrl-C handling never ran and a test waiting for it waited for ever (2026-12-06)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


class Stack:
    def __init__(self, folder: Path, **env: str):
        self.folder = folder
        self.db_path = folder / "db.sqlite3"
        self.env = {**os.environ, "CUPBOARD_VAR_DIR": str(folder), "DATABASE_URL": f"sqlite:///{self.db_path}",
                    "CELERY_BROKER_URL": "filesystem://", "CUPBOARD_FAST_PASSWORD_HASHER": "true",
                    "CUPBOARD_DEBUG": "true", "PYTHONUNBUFFERED": "1", **env}
        self.processes: list[subprocess.Popen] = []
        self.url = ""

    def __enter__(self) -> Stack:
        return self

    def __exit__(self, *exc) -> None:
        for process in reversed(self.processes):
            self.stop(process)

    def log(self, name: str) -> str:
        path = self.folder / f"{name}.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def manage(self, *args: str, timeout: float = PATIENCE) -> str:
        result = subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=self.env, capture_output=True,
                                text=True, timeout=timeout)
        assert result.returncode == 0, f"manage.py {args[0]} failed:\n{result.stdout}\n{result.stderr}"
        return result.stdout

    def migrate(self) -> None:
        """The stack's database migrated. On its own SQLite file (the default) it is a copy of the
        migrated template every test database is copied from (tests/migrated.py, kept in var/ until
        a migration changes): every migration run again in each stack cost the suite minutes of
        CPU. Elsewhere (DATABASE_URL overridden) `migrate` runs."""
        if self.env["DATABASE_URL"] != f"sqlite:///{self.db_path}":
            self.manage("migrate", "--noinput")
            return
        self.folder.mkdir(parents=True, exist_ok=True)
        with sqlite3.connect(sqlite_template()) as template, sqlite3.connect(self.db_path) as copy:
            template.backup(copy)

    def _spawn(self, name: str, argv: list[str], env: dict | None = None) -> subprocess.Popen:
        log = open(self.folder / f"{name}.log", "ab")
        process = subprocess.Popen(argv, cwd=ROOT, env=env or self.env, stdout=log, stderr=subprocess.STDOUT,
                                   start_new_session=True)
        log.close()
        self.processes.append(process)
        return process

    def start_server(self, port: int | None = None, **env: str) -> str:
        """`manage.py runserver` on `port` (default: a free one); `env` overrides the stack's
        (another broker; CUPBOARD_SITE_URL, for pages that print the site's address)."""
        port = port or free_port()
        self._spawn("server", [sys.executable, "manage.py", "runserver", "--noreload", f"127.0.0.1:{port}"],
                    {**self.env, **env})
        return self._listening("server", port)

    def start_gunicorn(self, **env: str) -> str:
        """gunicorn as the image runs it (docker/Dockerfile), on a free port; its log is "server"."""
        port = free_port()
        self._spawn("server", [str(BIN / "gunicorn"), "cupboard.wsgi", "--bind", f"127.0.0.1:{port}",
                               "--workers", "2", "--timeout", "60"], {**self.env, **env})
        return self._listening("server", port)

    def _listening(self, name: str, port: int) -> str:
        def listening():
            with socket.socket() as sock:
                return sock.connect_ex(("127.0.0.1", port)) == 0
        wait_until(listening, what=lambda: f"{name} on port {port}\n{self.log(name)}")
        self.url = f"http://127.0.0.1:{port}"
        return self.url

    def start_worker(self, name: str = "worker", *, beat: bool = True, queues: str = "",
                     **env: str) -> subprocess.Popen:
        """`celery -A cupboard worker -B` (beat runs the stale sweeper) on the stack's broker;
        `beat=False` for a second worker (one beat per site); `queues="systems"` for a runner
        of teams' systems (cupboard/systems/)."""
        argv = [str(BIN / "celery"), "-A", "cupboard", "worker", *(["-B"] if beat else []), "--pool=solo",
                *(["-Q", queues] if queues else []),
                "--without-mingle", "--without-gossip", "-l", "info", "-n", f"{name}-{os.getpid()}@%h",
                "--schedule", str(self.folder / f"{name}-beat-schedule")]
        process = self._spawn(name, argv, {**self.env, **env})
        wait_until(lambda: "ready" in self.log(name) or process.poll() is not None, what=f"{name} to be ready")
        assert process.poll() is None, self.log(name)
        return process

    @staticmethod
    def stop(process: subprocess.Popen) -> None:
        if process.poll() is not None:
            return
        try:
            os.killpg(process.pid, signal.SIGTERM)
            process.wait(timeout=15)
        except (subprocess.TimeoutExpired, ProcessLookupError):
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            process.wait(timeout=10)

    def query(self, sql: str, *params) -> list[tuple]:
        """Read the stack's database directly, as a second opinion on what the pages say."""
        with sqlite3.connect(self.db_path, timeout=60) as connection:
            return connection.execute(sql, params).fetchall()


SETUP = """
from pathlib import Path
from cupboard.competitions.services import qrels_release_create
from cupboard.competitions.topic_files import topics_import
from tests.factories import make_competition, make_user

folder = Path({folder!r})
organizer = make_user("organizer")
competition = make_competition(slug="cup", title="E2E Cup", known=["sw"], surprise=[], organizers=[organizer])
dev = competition.phases.get(slug="dev")
topics_import(phase=dev, subset="sw", file=folder / "topics.sw.tsv", name="topics.miracl-v1.0-sw-dev.tsv")
qrels_release_create(phase=dev, files={{"sw": folder / "qrels.sw.tsv"}}, actor=organizer)
print("ready", dev.pk)
"""


# A run of grace's team Hopper on the E2E Cup's dev phase, through the upload service: print its pk.
SUBMIT = """
from django.core.files.uploadedfile import SimpleUploadedFile
from cupboard.competitions.models import Phase
from cupboard.submissions.services import submission_create
from tests.factories import make_team, make_user

phase = Phase.objects.get(competition__slug="cup", slug="dev")
user = make_user("grace")
team = make_team(phase.competition, name="Hopper", members=[user])
run = SimpleUploadedFile("run.e2e.sw.txt", open({run!r}, "rb").read())
print(submission_create(phase=phase, team=team, user=user, files=[(run, None)], method_name="BM25").pk)
"""


PARTICIPANT = """
from cupboard.accounts.services import api_token_create
from cupboard.competitions.models import Competition
from cupboard.teams.services import team_create
from tests.factories import make_user

user = make_user({username!r})
team_create(competition=Competition.objects.get(slug={competition!r}), user=user, name={team!r})
print(api_token_create(user=user))
"""


def make_participant(stack: Stack, *, username: str = "cli-user", team: str = "Shell Scripts",
                     competition: str = "cup") -> str:
    """A user in a team of a competition (the E2E Cup); returns their API token."""
    script = PARTICIPANT.format(username=username, team=team, competition=competition)
    return stack.manage("shell", "-c", script).strip().splitlines()[-1]


def api_upload(stack: Stack, token: str, *runs: Path, method: str = "e2e", timeout: float = 60) -> tuple[int, dict]:
    """POST runs to the dev phase's upload API as a script would: (HTTP status, JSON answer)."""
    from evaluator.client.http import Multipart, call_api

    body = Multipart({"method_name": method}, [("files", run) for run in runs])
    return call_api(f"{stack.url}/submissions/api/cup/dev/", token, body, timeout=timeout)


def make_data(folder: Path, *, queries: int = 30) -> dict[str, Path]:
    """Synthetic MIRACL-shaped sw topics, qrels and a run (evaluator.synthetic)."""
    from evaluator import synthetic

    return {"topics": synthetic.make_topics(folder / "topics.sw.tsv", language="sw", count=queries),
            "qrels": synthetic.make_qrels(folder / "qrels.sw.tsv", language="sw", count=queries),
            "run": synthetic.make_run(folder / "run.e2e.sw.txt", language="sw", count=queries, tag="e2e")}


def expected_scores(files: dict[str, Path]) -> dict:
    """What `python -m evaluator score` says about the same files (the reference)."""
    import json

    result = subprocess.run([sys.executable, "-m", "evaluator", "score", "--qrels", f"sw={files['qrels']}",
                             "--run", f"sw={files['run']}", "--topics", f"sw={files['topics']}",
                             "--metrics", "nDCG@10,R@100", "--format", "json"],
                            cwd=ROOT, capture_output=True, text=True, timeout=PATIENCE)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def prepared_stack(folder: Path, *, migrated: bool = False, **env: str) -> tuple[Stack, dict[str, Path]]:
    """A migrated stack holding the E2E Cup (sw, dev phase with topics and open qrels); `migrated`:
    its database (DATABASE_URL in `env`) is migrated already (tests/e2e/hosts.py, fresh_database)."""
    files = make_data(folder)
    stack = Stack(folder, **env)
    if not migrated:
        stack.migrate()
    stack.manage("shell", "-c", SETUP.format(folder=str(folder)))
    return stack, files
