"""The commands docker/ runs, read from docker/ itself, so the load test stays in step with it.

The set-up is the compose file's `migrate` command, the web the Dockerfile's CMD (gunicorn),
a worker the compose file's `worker` command, the scheduler its `scheduler` command. Only what differs outside a container is changed: the
web binds 127.0.0.1 on a free port, each worker gets a name of its own (containers have
their own host names), beat keeps its schedule in the stack's folder.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import yaml

DOCKER = Path(__file__).resolve().parents[2] / "docker"


@dataclass(frozen=True)
class Commands:
    migrate: list[str]
    web: list[str]
    worker: list[str]
    scheduler: list[str]

    @property
    def supervised(self) -> bool:
        """Whether workers run under cupboard.supervise (which starts celery again when it exits)."""
        return "cupboard.supervise" in self.worker


def dockerfile_cmd(dockerfile: Path) -> list[str]:
    """The exec-form CMD of a Dockerfile (the last one counts)."""
    commands = [line for line in dockerfile.read_text().splitlines() if line.startswith("CMD ")]
    if not commands:
        raise RuntimeError(f"{dockerfile}: no CMD line")
    return json.loads(commands[-1][4:])


def read(*, port: int, folder: Path) -> Commands:
    compose = yaml.safe_load((DOCKER / "compose.yaml").read_text())["services"]
    web = [f"127.0.0.1:{port}" if arg == "0.0.0.0:8000" else arg for arg in dockerfile_cmd(DOCKER / "Dockerfile")]
    scheduler = [f"--schedule={folder / 'celerybeat-schedule'}" if arg.startswith("--schedule") else arg
                 for arg in compose["scheduler"]["command"]]
    return Commands(list(compose["migrate"]["command"]), web, list(compose["worker"]["command"]), scheduler)


def worker(commands: Commands, index: int) -> list[str]:
    return [*commands.worker, "-n", f"worker{index}@%h"]
