"""A production-shaped cupboard on the load test's own PostgreSQL and Redis.

Run with the commands docker/ runs (commands.py), debug off: the Dockerfile's gunicorn,
two workers with the compose file's `worker` command (as `--scale worker=2`) and one
scheduler, with the default stale and sweep settings. Like the compose file's
`restart: unless-stopped`, a process that exits by itself is started again, and the exit is
recorded. Every process gets a session of its own, so a kill reaches a worker's pool
children and teardown leaves nothing behind.
"""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from functools import partial
from pathlib import Path

from . import commands
from .logs import mark
from .servers import PostgreSQL, Redis, free_port, listening, wait_for

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
WORKERS = 2


class Stack:
    def __init__(self, *, keep: bool = False):
        self.folder = Path(tempfile.mkdtemp(prefix="cupboard-loadtest-"))
        self.folder.chmod(0o755)  # the postgres user must reach its cluster folder inside
        self.keep = keep
        self.postgres = PostgreSQL(self.folder / "postgres")
        self.redis = Redis(self.folder / "redis")
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.web: subprocess.Popen | None = None
        self.workers: list[subprocess.Popen | None] = [None] * WORKERS
        self.beat: subprocess.Popen | None = None
        self.scenario = ""  # the one running now (see mark)
        self.restarts: list[tuple[str, str, int]] = []  # (scenario, process, exit code): exits nobody asked for
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        self.commands = commands.read(port=self.port, folder=self.folder)

    @property
    def env(self) -> dict[str, str]:
        return {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
                "DJANGO_SETTINGS_MODULE": "cupboard.settings", "PYTHONUNBUFFERED": "1",
                "DATABASE_URL": self.postgres.url, "CELERY_BROKER_URL": self.redis.url,
                "CUPBOARD_DEBUG": "false", "SECRET_KEY": "loadtest-only-" + "x" * 40,
                "ALLOWED_HOSTS": "127.0.0.1", "CUPBOARD_TRUSTED_PROXIES": "127.0.0.1",
                "CUPBOARD_SITE_DIR": str(ROOT), "CUPBOARD_VAR_DIR": str(self.folder / "var"),
                "CUPBOARD_STATIC_ROOT": str(self.folder / "staticfiles")}

    def log(self, name: str) -> Path:
        return self.folder / "logs" / f"{name}.log"

    # -- life cycle ---------------------------------------------------------------------------
    def start(self, *, setup_args: list[str]) -> dict:
        """Servers, migrations, static files, the competition (its facts as a dict), then the processes."""
        (self.folder / "logs").mkdir()
        self.postgres.create()
        self.redis.start()
        self._run(self.commands.migrate)
        self._python("manage.py", "collectstatic", "--noinput")  # the image does this at build time
        facts = json.loads(self._python("-m", "scripts.loadtest.competition", *setup_args).splitlines()[-1])
        self.start_web()
        for index in range(WORKERS):
            self.start_worker(index)
        self.start_beat()
        threading.Thread(target=self._supervise, daemon=True).start()
        return facts

    def stop(self) -> None:
        """Everything this stack started, newest first (its folder stays until `remove`)."""
        self.stopping.set()
        with self.lock:
            for process in [self.beat, *self.workers, self.web]:
                if process is not None:
                    _stop(process)
        self.redis.stop()
        try:
            self.postgres.stop("immediate")
        except (RuntimeError, subprocess.TimeoutExpired) as error:
            print(f"stopping PostgreSQL: {error}", file=sys.stderr)

    def remove(self) -> None:
        if not self.keep:
            shutil.rmtree(self.folder, ignore_errors=True)

    # -- processes ----------------------------------------------------------------------------
    def _spawn(self, name: str, argv: list[str]) -> subprocess.Popen:
        log = open(self.log(name), "ab")
        process = subprocess.Popen(argv, cwd=self.folder, env=self.env, stdout=log, stderr=subprocess.STDOUT,
                                   start_new_session=True)
        log.close()
        return process

    def _run(self, argv: list[str], timeout: float = 600) -> str:
        """A set-up command in the checkout (the image's /app), to its end; its output."""
        result = subprocess.run(argv, cwd=ROOT, env=self.env, capture_output=True, text=True, timeout=timeout)
        if result.returncode:
            raise RuntimeError(f"{' '.join(argv[:4])} failed:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}")
        return result.stdout

    def _python(self, *argv: str) -> str:
        return self._run([sys.executable, *argv])

    def start_web(self) -> None:
        self.web = self._spawn("gunicorn", self.commands.web)
        wait_for(lambda: listening(self.port) or self.web.poll() is not None, seconds=60, what="gunicorn")
        if self.web.poll() is not None:
            raise RuntimeError(f"gunicorn exited:\n{self.log('gunicorn').read_text()[-3000:]}")

    def start_worker(self, index: int) -> None:
        name = f"worker{index}"
        self.workers[index] = self._spawn(name, commands.worker(self.commands, index))

    def start_beat(self) -> None:
        self.beat = self._spawn("beat", self.commands.scheduler)

    def kill_worker(self, index: int) -> set[int]:
        """kill -9 the celery worker and its pool children; return their pids. Under
        cupboard.supervise, the supervisor stays and starts celery again itself; without it the
        worker is the session's leader and is started again here, as `restart: unless-stopped` would."""
        with self.lock:
            leader = self.workers[index]
            pids = _session_pids(leader.pid)
            if self.commands.supervised:
                pids.discard(leader.pid)
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            if not self.commands.supervised:
                leader.wait(timeout=10)
                self.start_worker(index)
            return pids

    def _supervise(self) -> None:
        """`restart: unless-stopped`: a web, worker or beat process that exits by itself is started
        again within a second, and the exit is recorded (a worker that dies on a broker outage is
        a finding)."""
        while not self.stopping.wait(1.0):
            with self.lock:
                if self.stopping.is_set():
                    return
                for name, process, start in [("gunicorn", self.web, self.start_web), ("beat", self.beat, self.start_beat),
                                             *((f"worker{i}", p, partial(self.start_worker, i))
                                               for i, p in enumerate(self.workers))]:
                    if process is not None and process.poll() is not None:
                        self.restarts.append((self.scenario, name, process.returncode))
                        start()

    def busiest_worker(self) -> int:
        """The worker whose processes (main and pool children) used the most CPU over the last
        half second: the one most likely to be scoring, so a kill interrupts real work."""
        before = [_session_cpu(p.pid) for p in self.workers]
        time.sleep(0.5)
        after = [_session_cpu(p.pid) for p in self.workers]
        return max(range(len(self.workers)), key=lambda i: after[i] - before[i])

    def worker_of(self, pid: int) -> int | None:
        """Which worker's session the process `pid` belongs to, if any."""
        for index, process in enumerate(self.workers):
            if process is not None and pid in _session_pids(process.pid):
                return index
        return None

    def mark(self, scenario: str) -> None:
        """A line in every log saying which scenario starts here (see logs.py)."""
        self.scenario = scenario
        mark(sorted((self.folder / "logs").glob("*.log")), scenario)

    def workers_ready(self, seconds: float = 120) -> None:
        """Wait until every worker logged `ready` (connected to the broker, tasks registered)."""
        def ready():
            return all(self.log(f"worker{i}").exists() and "ready." in self.log(f"worker{i}").read_text(errors="replace")
                       for i in range(WORKERS))
        wait_for(ready, seconds=seconds, what="the Celery workers", every=0.5)



def _session_stats(session: int) -> dict[int, list[str]]:
    """{pid: /proc/<pid>/stat fields from the state on} of every process in a session."""
    out = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[3]) == session:  # field 6, the session id (fields[0] is field 3, the state)
            out[int(stat.parent.name)] = fields
    return out


def _session_pids(session: int) -> set[int]:
    return set(_session_stats(session))


def _session_cpu(session: int) -> int:
    """CPU ticks (user + system) of every live process in a session."""
    return sum(int(fields[11]) + int(fields[12]) for fields in _session_stats(session).values())


def _stop(process: subprocess.Popen) -> None:
    """SIGTERM to the process (a supervisor passes it on, celery shuts down warm, gunicorn
    gracefully), up to 20 s to finish; then SIGKILL to whatever is left of its session."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            pass
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    process.wait(timeout=10)
