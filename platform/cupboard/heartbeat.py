"""A Celery worker's heartbeat, and the liveness check that reads it.

A worker that still runs but no longer takes work (its event loop stuck, its broker connection
gone for good) looks alive to a process check. So each worker writes the time into a file of
its own (`CUPBOARD_HEARTBEAT_DIR/<node name>`) every `INTERVAL` seconds, from a timer of its
event loop: the beats stop when the loop stops. An orchestrator, compose's healthcheck or an
operator asks

    python -m cupboard.heartbeat [--max-age 60] [--node celery@HOST]

which exits 0 when the node's last beat is recent and 1 (saying why) when it is not. A worker
that stops cleanly removes its file. With the solo pool a task runs on the loop itself, so a
task longer than --max-age reads as a stuck worker: production workers use prefork.
"""
from __future__ import annotations

import argparse
import os
import socket
import sys
import time
from pathlib import Path

from celery import bootsteps

INTERVAL = 10.0
MAX_AGE = 60.0


def heartbeat_dir() -> Path:
    from django.conf import settings

    return Path(settings.CUPBOARD_HEARTBEAT_DIR)


def beat_file(node: str, folder: Path | None = None) -> Path:
    return (folder or heartbeat_dir()) / node.replace("/", "_")


def write_beat(path: Path, now: float | None = None) -> None:
    """The time of the beat, written whole or not at all (a reader never sees half a number)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.{os.getpid()}")
    partial.write_text(f"{time.time() if now is None else now:.3f}\n")
    os.replace(partial, path)


def beat_age(path: Path, now: float | None = None) -> float | None:
    """Seconds since the last beat in `path`; None when there is none."""
    try:
        beat = float(path.read_text())
    except (OSError, ValueError):
        return None
    return (time.time() if now is None else now) - beat


class HeartbeatStep(bootsteps.StartStopStep):
    """Celery worker bootstep: beats on the worker's timer from start to stop."""

    requires = {"celery.worker.components:Timer"}

    def __init__(self, worker, **kwargs):
        super().__init__(worker, **kwargs)
        self.path: Path | None = None
        self.entry = None

    def start(self, worker) -> None:
        self.path = beat_file(worker.hostname)
        write_beat(self.path)
        self.entry = worker.timer.call_repeatedly(INTERVAL, write_beat, (self.path,), priority=10)

    def stop(self, worker) -> None:
        if self.entry is not None:
            self.entry.cancel()
        if self.path is not None:
            self.path.unlink(missing_ok=True)


def check(node: str, max_age: float, folder: Path | None = None) -> str | None:
    """None when `node` beat within `max_age` seconds, else why not."""
    path = beat_file(node, folder)
    age = beat_age(path)
    if age is None:
        return f"{node}: no heartbeat in {path}"
    if age > max_age:
        return f"{node}: last heartbeat {age:.0f} s ago (more than {max_age:g} s)"
    return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m cupboard.heartbeat", description=__doc__.split("\n\n")[0])
    parser.add_argument("--node", default=f"celery@{socket.gethostname()}",
                        help="the worker's node name (default: celery@ this host's name, the worker's default)")
    parser.add_argument("--max-age", type=float, default=MAX_AGE, help="seconds a beat stays fresh (default 60)")
    args = parser.parse_args(argv)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cupboard.settings")
    problem = check(args.node, args.max_age)
    print(problem or f"{args.node}: alive", file=sys.stderr if problem else sys.stdout)
    return 1 if problem else 0


if __name__ == "__main__":
    sys.exit(main())
