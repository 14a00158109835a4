"""The load test's own PostgreSQL and Redis: throwaway instances in a temp folder, on free ports.

Never the machine's shared servers: the outage scenarios stop and start these. PostgreSQL
comes from /usr/lib/postgresql/<version>/bin (initdb refuses to run as root, so as root the
cluster belongs to the `postgres` system user); Redis keeps an append-only file, as in
docker/compose.yaml, so a restart finds the queue it had.
"""
from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import time
from pathlib import Path


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def listening(port: int) -> bool:
    with socket.socket() as sock:
        sock.settimeout(0.5)
        return sock.connect_ex(("127.0.0.1", port)) == 0


def wait_for(check, *, seconds: float, what: str, every: float = 0.1) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        if time.monotonic() > deadline:
            raise RuntimeError(f"timed out after {seconds:.0f} s waiting for {what}")
        time.sleep(every)


class PostgreSQL:
    """A cluster in `folder`, listening on 127.0.0.1 only, trusting local connections."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.data = folder / "pgdata"
        self.log = folder / "postgresql.log"
        self.port = free_port()
        self.url = f"postgres://postgres@127.0.0.1:{self.port}/cupboard"
        versions = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"), key=lambda p: int(Path(p).parts[-3]))
        if not versions:
            raise RuntimeError("no PostgreSQL server binaries under /usr/lib/postgresql/*/bin")
        self.bin = Path(versions[-1]).parent

    def _run(self, *argv: str, timeout: float = 120) -> None:
        """Run a server program as the cluster's owner (the `postgres` user when we are root)."""
        prefix = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        result = subprocess.run(prefix + list(argv), capture_output=True, text=True, timeout=timeout)
        if result.returncode:
            raise RuntimeError(f"{' '.join(argv[:2])} failed:\n{result.stdout}\n{result.stderr}")

    def create(self) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        if os.geteuid() == 0:
            shutil.chown(self.folder, "postgres", "postgres")
        self._run(str(self.bin / "initdb"), "-D", str(self.data), "-U", "postgres", "--auth=trust",
                  "--encoding=UTF8", "--no-sync")
        self.start()
        self._run(str(self.bin / "createdb"), "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres", "cupboard")

    def start(self) -> None:
        options = f"-p {self.port} -c listen_addresses=127.0.0.1 -k {self.folder} -c max_connections=200"
        self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-l", str(self.log), "-o", options, "-w", "start")

    def stop(self, mode: str = "fast") -> None:
        """`fast` disconnects every client, as a crash or a failover would; `immediate` skips the checkpoint."""
        if (self.data / "postmaster.pid").exists():
            self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", mode, "-w", "stop")


class Redis:
    """redis-server on a free port with its files in `folder`; stopped with SIGTERM (it saves first)."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        log = open(self.folder / "redis.log", "ab")
        self.process = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--dir", str(self.folder),
             "--appendonly", "yes", "--save", "", "--protected-mode", "yes"],
            stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        log.close()
        wait_for(lambda: listening(self.port) or self.process.poll() is not None, seconds=30, what="redis-server")
        if self.process.poll() is not None:
            raise RuntimeError(f"redis-server exited: {(self.folder / 'redis.log').read_text()[-2000:]}")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
        self.process = None
