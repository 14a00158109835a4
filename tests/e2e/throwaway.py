"""A PostgreSQL cluster of the test's own, in a temp folder on a free port, to stop and start
at will in outage tests. Never the machine's shared server (5432), which others depend on.

    with ThrowawayPostgres() as pg:
        url = pg.create_database("cupboard")
        ...; pg.stop(); ...; pg.start()

initdb refuses to run as root; as root, the cluster belongs to the `postgres` user.
"""
from __future__ import annotations

import glob
import os
import pwd
import shutil
import subprocess
import tempfile
from pathlib import Path

from tests.e2e.stack import free_port
from tests.waiting import PATIENCE


def postgres_bin() -> Path | None:
    """The newest installed server's bin folder (Debian layout), or None."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(Path(p).parts[4]))
    return Path(found[-1]).parent if found else None


class ThrowawayPostgres:
    def __init__(self):
        self.bin = postgres_bin()
        self.port = free_port()
        self.folder = Path(tempfile.mkdtemp(prefix="cupboard-pg-"))
        self.data = self.folder / "data"
        self.as_user = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []

    def __enter__(self) -> ThrowawayPostgres:
        if self.as_user:
            account = pwd.getpwnam("postgres")
            os.chown(self.folder, account.pw_uid, account.pw_gid)
        self._run("initdb", "-D", str(self.data), "-U", "postgres", "-A", "trust", "--no-sync")
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()
        shutil.rmtree(self.folder, ignore_errors=True)

    def _run(self, tool: str, *args: str) -> None:
        result = subprocess.run([*self.as_user, str(self.bin / tool), *args], capture_output=True, text=True,
                                timeout=PATIENCE)
        assert result.returncode == 0, f"{tool} failed:\n{result.stdout}\n{result.stderr}"

    def start(self) -> None:
        options = f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1 -c fsync=off"
        self._run("pg_ctl", "-D", str(self.data), "-o", options, "-l", str(self.folder / "server.log"), "-w", "start")

    def stop(self) -> None:
        if (self.data / "postmaster.pid").exists():
            self._run("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "stop")

    def create_database(self, name: str) -> str:
        """Create `name`; returns its DATABASE_URL."""
        self._run("createdb", "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres", name)
        return f"postgres://postgres@127.0.0.1:{self.port}/{name}"
